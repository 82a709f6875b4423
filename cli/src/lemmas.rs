//! `semfuzz lemmas [--prove]`: the lemma library the encoder rewrites with
//! (`semfuzz_smt::lemma`). Without `--prove`, each lemma and whether smt/lemmas.txt records it
//! proved; with it, every input tuple of each selected lemma is checked again and the record
//! is printed (`semfuzz lemmas --prove > smt/lemmas.txt`).

use anyhow::{anyhow, Result};
use semfuzz_smt::lemma::{record_line, Lemma};
use std::time::SystemTime;

pub fn run(prove: bool, threads: usize, only: &[String]) -> Result<bool> {
    let chosen: Vec<Lemma> = Lemma::all()
        .into_iter()
        .filter(|l| only.is_empty() || only.iter().any(|o| l.name().contains(o.as_str())))
        .collect();
    if chosen.is_empty() {
        let names: Vec<String> = Lemma::all().iter().map(Lemma::name).collect();
        return Err(anyhow!(
            "no lemma's name contains {}\nhint: the lemmas are {}",
            only.join(" or "),
            names.join(", ")
        ));
    }
    if !prove {
        for l in &chosen {
            let state = if l.is_recorded() {
                "proved (smt/lemmas.txt)"
            } else {
                "not proved: run `semfuzz lemmas --prove`"
            };
            outln!("{}: {state}", l.name());
        }
        return Ok(true);
    }
    let date = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    outln!(
        "# Innocuous double rounding and LLVM's integer rounding to bfloat, proved by semfuzz over every input tuple (smt/src/lemma.rs)."
    );
    outln!("# Regenerate: semfuzz lemmas --prove > smt/lemmas.txt");
    let mut all = true;
    for l in &chosen {
        match l.prove(threads) {
            Ok(proof) => outln!("{}", record_line(l, &proof, &date)),
            Err(e) => {
                outln!("# {} REFUTED: {e}", l.name());
                all = false;
            }
        }
    }
    Ok(all)
}
