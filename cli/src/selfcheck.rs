pub fn run(_s: &semfuzz_spec::Spec, _p: Option<&str>, _c: usize, _seed: u64) -> anyhow::Result<bool> { anyhow::bail!("selfcheck is not built yet") }
