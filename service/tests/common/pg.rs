//! A PostgreSQL server for tests: initdb + pg_ctl from the machine's packages (as the
//! `postgres` user when we are root, since initdb refuses root), on a temporary directory and a
//! free port, stopped by a watchdog when the test process ends. Shared by the service's tests
//! and the CLI's process tests (`#[path]`), so it needs only std and tempfile.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// A running PostgreSQL: its port and binaries.
pub struct Pg {
    pub port: u16,
    bin: PathBuf,
}

/// The newest `/usr/lib/postgresql/*/bin` with `initdb`.
fn pg_bin() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|b| b.join("initdb").exists())
        .collect();
    dirs.sort();
    dirs.pop()
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

/// Runs a PostgreSQL binary as `postgres` (initdb refuses root) or as ourselves.
fn pg_cmd(bin: &std::path::Path, tool: &str) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(tool));
        c
    } else {
        Command::new(bin.join(tool))
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn run(mut c: Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The PostgreSQL server of this test process, started on first use and stopped (by a
/// watchdog shell) when the process exits; `None`, loudly, when the machine has none.
pub fn pg() -> Option<&'static Pg> {
    static PG: OnceLock<Option<Pg>> = OnceLock::new();
    PG.get_or_init(|| {
        let Some(bin) = pg_bin() else {
            eprintln!("\n!!! SKIPPING PostgreSQL tests: no /usr/lib/postgresql/*/bin/initdb (run `cargo xtask setup`) !!!\n");
            return None;
        };
        let dir = tempfile::Builder::new().prefix("semfuzz-pg").tempdir().unwrap().keep();
        let data = dir.join("data");
        if is_root() {
            run({ let mut c = Command::new("chown"); c.args(["-R", "postgres:postgres"]).arg(&dir); c }, "chown");
        }
        let port = free_port();
        let mut init = pg_cmd(&bin, "initdb");
        init.args(["-U", "semfuzz", "--auth=trust", "-E", "UTF8", "--no-sync", "-D"]).arg(&data);
        run(init, "initdb");
        let mut start = pg_cmd(&bin, "pg_ctl");
        start.arg("-D").arg(&data).arg("-l").arg(dir.join("log")).args(["-w", "-o"]).arg(format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300",
            dir.display()
        )).arg("start");
        run(start, "pg_ctl start");
        // Stops the server and removes its directory when this process ends, however it ends.
        let watchdog = format!(
            "while [ -d /proc/{pid} ]; do sleep 1; done; {pg_ctl} -D {data} -m immediate stop; rm -rf {dir}",
            pid = std::process::id(),
            pg_ctl = bin.join("pg_ctl").display(),
            data = data.display(),
            dir = dir.display()
        );
        let mut w = if is_root() { let mut c = Command::new("runuser"); c.args(["-u", "postgres", "--"]); c.arg("sh"); c } else { Command::new("sh") };
        w.args(["-c", &watchdog]).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        // Detached on purpose: it outlives this process (that is its job).
        #[allow(clippy::zombie_processes)]
        w.spawn().expect("starting the PostgreSQL watchdog");
        Some(Pg { port, bin })
    })
    .as_ref()
}

impl Pg {
    /// A fresh, empty database's URL.
    pub fn fresh_db(&self) -> String {
        static N: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "t{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let mut c = pg_cmd(&self.bin, "createdb");
        c.args([
            "-h",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-U",
            "semfuzz",
            &name,
        ]);
        run(c, "createdb");
        format!("postgres://semfuzz@127.0.0.1:{}/{name}", self.port)
    }
}
