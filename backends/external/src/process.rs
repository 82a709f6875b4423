//! One adapter process: its stdin fed by a writer thread, its stdout split into lines by a
//! reader thread, the tail of its stderr kept for error messages. Every read has a deadline,
//! so a process that hangs, or stops reading its input, never blocks the caller.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The longest line read from the process; a longer one is garbage.
const MAX_LINE: usize = 64 * 1024;
/// How many lines of the process's stderr error messages quote.
const STDERR_LINES: usize = 4;
/// How long a process that was told to quit, or whose stdout closed, may take to exit.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// What the reader thread saw on the process's stdout.
enum Event {
    Line(String),
    /// A line that is not UTF-8 or longer than [`MAX_LINE`], shown lossily and shortened.
    Garbage(String),
    Closed,
}

/// Why no line came.
pub(crate) enum ReadError {
    /// Nothing within the deadline.
    Timeout,
    /// Stdout closed: the process exited or closed it.
    Closed,
    /// A line that is not text, or too long.
    Garbage(String),
}

/// A running adapter process.
pub(crate) struct Process {
    child: Child,
    input: Option<Sender<Vec<u8>>>,
    output: Receiver<Event>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Disconnected once the stderr thread has read everything (the pipe's end).
    stderr_read: Receiver<()>,
    /// The last line read from stdout, for error messages.
    last: Option<String>,
}

impl Process {
    /// Starts `command` (program and arguments) with `env` added to the environment.
    pub(crate) fn spawn(command: &[String], env: &[(String, String)]) -> Result<Process, String> {
        let (program, args) = command
            .split_first()
            .ok_or("the command is empty: give a program to run, e.g. `external:./my-sim`")?;
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{program}`: {e}"))?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("`{program}` started without the pipes asked for"));
                }
            };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_read = keep_tail(stderr, Arc::clone(&tail));
        Ok(Process {
            child,
            input: Some(writer(stdin)),
            output: reader(stdout),
            stderr: tail,
            stderr_read,
            last: None,
        })
    }

    /// Queues `text` for the process's stdin; the writer thread writes it.
    pub(crate) fn send(&mut self, text: String) {
        if let Some(input) = &self.input {
            // A send fails only when the writer thread ended because the pipe broke; the
            // process's exit then shows up as a closed stdout on the next read.
            let _ = input.send(text.into_bytes());
        }
    }

    /// The next line of stdout, waiting until `deadline` at most.
    pub(crate) fn read_line(&mut self, deadline: Instant) -> Result<String, ReadError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.output.recv_timeout(wait) {
            Ok(Event::Line(line)) => {
                self.last = Some(line.clone());
                Ok(line)
            }
            Ok(Event::Garbage(shown)) => {
                self.last = Some(shown.clone());
                Err(ReadError::Garbage(shown))
            }
            Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => Err(ReadError::Closed),
            Err(RecvTimeoutError::Timeout) => Err(ReadError::Timeout),
        }
    }

    /// How the process ended, after its stdout closed: `exited with exit status: 3`, or that
    /// it kept running (it is then killed).
    pub(crate) fn ending(&mut self) -> String {
        let deadline = Instant::now() + EXIT_GRACE;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    // The last words on stderr may still be in the pipe when the exit is
                    // seen: wait for the reader to reach its end (bounded, since a
                    // grandchild may hold the pipe open).
                    let _ = self
                        .stderr_read
                        .recv_timeout(deadline.saturating_duration_since(Instant::now()));
                    return format!("exited ({status})");
                }
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
                Ok(None) => {
                    self.kill();
                    return "closed its stdout but kept running (killed)".to_string();
                }
                Err(e) => return format!("could not be waited for ({e})"),
            }
        }
    }

    /// What the process wrote last, on stdout and stderr, for an error message.
    pub(crate) fn last_words(&self) -> String {
        let stdout = match &self.last {
            Some(line) => format!("last line on stdout: `{}`", shorten(line)),
            None => "nothing on stdout".to_string(),
        };
        let stderr: Vec<String> = self
            .stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        if stderr.is_empty() {
            format!("{stdout}; nothing on stderr")
        } else {
            format!("{stdout}; stderr ended with: {}", stderr.join(" | "))
        }
    }

    /// Kills the process and reaps it.
    pub(crate) fn kill(&mut self) {
        self.input = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends `farewell`, closes stdin and gives the process [`EXIT_GRACE`] to exit before
    /// killing it.
    pub(crate) fn finish(&mut self, farewell: &str) {
        self.send(farewell.to_string());
        self.input = None;
        let deadline = Instant::now() + EXIT_GRACE;
        while let Ok(None) = self.child.try_wait() {
            if Instant::now() >= deadline {
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A line shortened for a message.
fn shorten(line: &str) -> String {
    const SHOWN: usize = 200;
    if line.chars().count() <= SHOWN {
        line.to_string()
    } else {
        let head: String = line.chars().take(SHOWN).collect();
        format!("{head}… ({} bytes)", line.len())
    }
}

/// The thread that writes what [`Process::send`] queues; it ends when the pipe breaks or the
/// sender is dropped (which closes the process's stdin).
fn writer(mut stdin: ChildStdin) -> Sender<Vec<u8>> {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    thread::spawn(move || {
        for chunk in rx {
            if stdin
                .write_all(&chunk)
                .and_then(|()| stdin.flush())
                .is_err()
            {
                break;
            }
        }
    });
    tx
}

/// The thread that splits stdout into lines.
fn reader(stdout: ChildStdout) -> Receiver<Event> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = BufReader::new(stdout);
        loop {
            let event = match next_line(&mut out) {
                Some(event) => event,
                None => Event::Closed,
            };
            let closed = !matches!(event, Event::Line(_));
            if tx.send(event).is_err() || closed {
                break;
            }
        }
    });
    rx
}

/// One line of `out` without its line ending; `None` at the end of the stream or on a read
/// error (both mean the process is gone for the caller).
fn next_line(out: &mut impl BufRead) -> Option<Event> {
    let mut buf = Vec::new();
    match out
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)
    {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            let ended = buf.last() == Some(&b'\n');
            if ended {
                buf.pop();
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
            } else if buf.len() > MAX_LINE {
                let shown = shorten(&String::from_utf8_lossy(&buf));
                return Some(Event::Garbage(format!(
                    "{shown} (a line over {MAX_LINE} bytes)"
                )));
            }
            Some(match String::from_utf8(buf) {
                Ok(line) => Event::Line(line),
                Err(e) => Event::Garbage(format!(
                    "{} (not UTF-8 text)",
                    shorten(&String::from_utf8_lossy(e.as_bytes()))
                )),
            })
        }
    }
}

/// The thread that keeps the last [`STDERR_LINES`] lines of stderr in `tail`; the receiver
/// it returns disconnects when the thread has read to the pipe's end.
fn keep_tail(stderr: ChildStderr, tail: Arc<Mutex<VecDeque<String>>>) -> Receiver<()> {
    let (done, read) = mpsc::channel::<()>();
    thread::spawn(move || {
        // Dropped when the thread returns: that disconnect is the signal.
        let _done = done;
        let mut err = BufReader::new(stderr);
        while let Some(event) = next_line(&mut err) {
            let line = match event {
                Event::Line(l) | Event::Garbage(l) => l,
                Event::Closed => break,
            };
            if line.trim().is_empty() {
                continue;
            }
            let Ok(mut t) = tail.lock() else { break };
            if t.len() == STDERR_LINES {
                t.pop_front();
            }
            t.push_back(shorten(line.trim_end()));
        }
    });
    read
}
