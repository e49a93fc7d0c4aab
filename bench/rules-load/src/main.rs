//! Closed-loop load generator for `griot.v1.RulesService/ApplyMove`.
//!
//! `--clients` clients share `--connections` HTTP/2 connections (one `tonic` channel each, so that
//! the kernel's SO_REUSEPORT balancing spreads them over the server's worker processes). Each
//! client plays random games: it starts from the start position of a variant drawn at random, sends
//! one `ApplyMove` at a time with a move drawn from the previous response's `legal_moves`, and
//! starts a new game when the game is over or a call fails. Calls that start after the warm-up and
//! end before the end of the measured window count; failures are counted by status code.
//!
//! The result is one JSON object on stdout (bench/rules_load.py reads it):
//!
//! ```text
//! rules-load --target 127.0.0.1:50051 --clients 64 --connections 8 --warmup 1 --duration 4 \
//!     --variants awale,bechi,ikibuguzo,sabouiyya
//! ```

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tonic::transport::{Channel, Endpoint};

pub mod pb {
    tonic::include_proto!("griot.v1");
}

use pb::rules_service_client::RulesServiceClient;
use pb::{ApplyMoveRequest, StartPositionRequest};

const USAGE: &str = "usage: rules-load --target HOST:PORT [--clients N] [--connections N] \
[--warmup SECONDS] [--duration SECONDS] [--variants V1,V2,...] [--seed N] [--threads N] \
[--timeout SECONDS]";

/// What to run.
#[derive(Debug, Clone)]
struct Config {
    target: String,
    clients: usize,
    connections: usize,
    warmup: f64,
    duration: f64,
    variants: Vec<String>,
    seed: u64,
    threads: usize,
    timeout: f64,
}

fn parse_args(args: &[String]) -> Result<Config, String> {
    let mut cfg = Config {
        target: String::new(),
        clients: 1,
        connections: 0,
        warmup: 1.0,
        duration: 4.0,
        variants: vec!["awale".into(), "bechi".into(), "ikibuguzo".into(), "sabouiyya".into()],
        seed: 1,
        threads: 1,
        timeout: 5.0,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "-h" || flag == "--help" {
            return Err(USAGE.into());
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let bad = |what: &str| format!("{flag}: {value:?} is not {what}");
        match flag.as_str() {
            "--target" => cfg.target = value.clone(),
            "--clients" => cfg.clients = value.parse().map_err(|_| bad("a whole number"))?,
            "--connections" => cfg.connections = value.parse().map_err(|_| bad("a whole number"))?,
            "--warmup" => cfg.warmup = value.parse().map_err(|_| bad("a number of seconds"))?,
            "--duration" => cfg.duration = value.parse().map_err(|_| bad("a number of seconds"))?,
            "--seed" => cfg.seed = value.parse().map_err(|_| bad("a whole number"))?,
            "--threads" => cfg.threads = value.parse().map_err(|_| bad("a whole number"))?,
            "--timeout" => cfg.timeout = value.parse().map_err(|_| bad("a number of seconds"))?,
            "--variants" => {
                cfg.variants =
                    value.split(',').map(str::trim).filter(|v| !v.is_empty()).map(String::from).collect()
            }
            _ => return Err(format!("unknown flag {flag}\n{USAGE}")),
        }
    }
    if cfg.target.is_empty() {
        return Err(format!("--target is required\n{USAGE}"));
    }
    if cfg.clients == 0 || cfg.threads == 0 {
        return Err("--clients and --threads must be at least 1".into());
    }
    if cfg.variants.is_empty() {
        return Err("--variants names no variant".into());
    }
    if !(cfg.duration > 0.0 && cfg.warmup >= 0.0 && cfg.timeout > 0.0) {
        return Err("--duration and --timeout must be positive, --warmup not negative".into());
    }
    if cfg.connections == 0 {
        cfg.connections = cfg.clients;
    }
    cfg.connections = cfg.connections.min(cfg.clients);
    Ok(cfg)
}

/// SplitMix64: a small, good-enough generator for drawing moves (no dependency needed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A game's start: the variant's index, its start position and its legal moves.
#[derive(Clone)]
struct Start {
    variant: usize,
    position: String,
    moves: Vec<String>,
}

/// What one client measured.
#[derive(Default)]
struct ClientResult {
    /// Latency of each counted call, in nanoseconds.
    latencies: Vec<u64>,
    errors: BTreeMap<String, u64>,
    /// Counted calls per variant index.
    per_variant: Vec<u64>,
    games_finished: u64,
    /// Every answered call, warm-up included (for CPU per call).
    answered: u64,
}

async fn client(
    mut stub: RulesServiceClient<Channel>,
    starts: std::sync::Arc<Vec<Start>>,
    seed: u64,
    measure_from: Instant,
    end: Instant,
    timeout: Duration,
) -> ClientResult {
    let mut rng = Rng(seed);
    let mut out = ClientResult { per_variant: vec![0; starts.len()], ..Default::default() };
    let mut game = starts[rng.below(starts.len())].clone();
    loop {
        if Instant::now() >= end {
            return out;
        }
        if game.moves.is_empty() {
            game = starts[rng.below(starts.len())].clone();
        }
        let mv = game.moves[rng.below(game.moves.len())].clone();
        let mut request = tonic::Request::new(ApplyMoveRequest {
            position: std::mem::take(&mut game.position),
            r#move: mv,
        });
        request.set_timeout(timeout);
        let t0 = Instant::now();
        let reply = stub.apply_move(request).await;
        let t1 = Instant::now();
        let counted = t0 >= measure_from && t1 <= end;
        match reply {
            Ok(resp) => {
                let resp = resp.into_inner();
                out.answered += 1;
                if counted {
                    out.latencies.push((t1 - t0).as_nanos() as u64);
                    out.per_variant[game.variant] += 1;
                }
                game.position = resp.position.map(|p| p.notation).unwrap_or_default();
                game.moves = resp.legal_moves;
                if game.moves.is_empty() && counted {
                    out.games_finished += 1;
                }
            }
            Err(status) => {
                out.answered += 1;
                if t0 >= measure_from {
                    *out.errors.entry(format!("{:?}", status.code())).or_default() += 1;
                }
                game.moves.clear();
            }
        }
    }
}

/// The nearest-rank percentile of sorted values (q in 0..=1).
fn percentile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1e6
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

async fn run(cfg: Config) -> Result<String, String> {
    let endpoint = Endpoint::from_shared(format!("http://{}", cfg.target))
        .map_err(|e| format!("--target {:?}: {e}", cfg.target))?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(5));
    let mut channels = Vec::with_capacity(cfg.connections);
    for _ in 0..cfg.connections {
        let ch = endpoint.connect().await.map_err(|e| format!("cannot connect to {}: {e}", cfg.target))?;
        channels.push(RulesServiceClient::new(ch));
    }
    let mut starts = Vec::with_capacity(cfg.variants.len());
    for (i, v) in cfg.variants.iter().enumerate() {
        let resp = channels[0]
            .clone()
            .start_position(StartPositionRequest { variant: v.clone() })
            .await
            .map_err(|e| format!("StartPosition({v:?}): {:?}: {}", e.code(), e.message()))?
            .into_inner();
        let position = resp.position.map(|p| p.notation).unwrap_or_default();
        starts.push(Start { variant: i, position, moves: resp.legal_moves });
    }
    let starts = std::sync::Arc::new(starts);

    let begin = Instant::now();
    let measure_from = begin + Duration::from_secs_f64(cfg.warmup);
    let end = measure_from + Duration::from_secs_f64(cfg.duration);
    let timeout = Duration::from_secs_f64(cfg.timeout);
    let tasks: Vec<_> = (0..cfg.clients)
        .map(|i| {
            let stub = channels[i % channels.len()].clone();
            let seed = cfg.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
            tokio::spawn(client(stub, starts.clone(), seed, measure_from, end, timeout))
        })
        .collect();
    let mut latencies = Vec::new();
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let mut per_variant = vec![0u64; cfg.variants.len()];
    let mut games = 0;
    let mut answered = 0;
    for t in tasks {
        let r = t.await.map_err(|e| format!("a client task failed: {e}"))?;
        latencies.extend(r.latencies);
        for (k, v) in r.errors {
            *errors.entry(k).or_default() += v;
        }
        for (acc, n) in per_variant.iter_mut().zip(r.per_variant) {
            *acc += n;
        }
        games += r.games_finished;
        answered += r.answered;
    }
    latencies.sort_unstable();
    let requests = latencies.len();
    let error_total: u64 = errors.values().sum();
    let fmt_map = |pairs: Vec<(String, u64)>| {
        pairs.iter().map(|(k, v)| format!("{}:{v}", json_string(k))).collect::<Vec<_>>().join(",")
    };
    let variant_counts: Vec<(String, u64)> = cfg.variants.iter().cloned().zip(per_variant).collect();
    let mean =
        if requests == 0 { f64::NAN } else { latencies.iter().sum::<u64>() as f64 / requests as f64 / 1e6 };
    let num = |x: f64| if x.is_finite() { format!("{x:.4}") } else { "null".into() };
    Ok(format!(
        "{{\"clients\":{},\"connections\":{},\"threads\":{},\"seconds\":{},\"requests\":{requests},\
\"rps\":{},\"errors\":{error_total},\"error_codes\":{{{}}},\"p50_ms\":{},\"p90_ms\":{},\"p99_ms\":{},\
\"max_ms\":{},\"mean_ms\":{},\"games_finished\":{games},\"answered\":{answered},\"per_variant\":{{{}}}}}",
        cfg.clients,
        cfg.connections,
        cfg.threads,
        cfg.duration,
        num(requests as f64 / cfg.duration),
        fmt_map(errors.into_iter().collect()),
        num(percentile(&latencies, 0.50)),
        num(percentile(&latencies, 0.90)),
        num(percentile(&latencies, 0.99)),
        num(latencies.last().map_or(f64::NAN, |&x| x as f64 / 1e6)),
        num(mean),
        fmt_map(variant_counts),
    ))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cfg = match parse_args(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rules-load: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = if cfg.threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(cfg.threads).enable_all().build()
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rules-load: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cfg)) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rules-load: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_parse_and_connections_default_to_one_per_client() {
        let cfg =
            parse_args(&args(&["--target", "127.0.0.1:1", "--clients", "16", "--variants", "awale, bechi,"]))
                .unwrap();
        assert_eq!((cfg.clients, cfg.connections, cfg.threads), (16, 16, 1));
        assert_eq!(cfg.variants, vec!["awale", "bechi"]);
        let cfg = parse_args(&args(&["--target", "h:1", "--clients", "4", "--connections", "9"])).unwrap();
        assert_eq!(cfg.connections, 4, "never more connections than clients");
    }

    #[test]
    fn bad_flags_are_named() {
        let err = |list: &[&str]| parse_args(&args(list)).unwrap_err();
        assert!(err(&["--clients", "2"]).starts_with("--target is required"));
        assert!(err(&["--target", "h:1", "--clients", "many"])
            .starts_with("--clients: \"many\" is not a whole number"));
        assert!(err(&["--target", "h:1", "--speed", "9"]).starts_with("unknown flag --speed"));
        assert!(err(&["--target"]).starts_with("--target needs a value"));
        assert!(err(&["--target", "h:1", "--duration", "0"]).contains("--duration"));
        assert!(err(&["--target", "h:1", "--variants", ","]).contains("no variant"));
    }

    #[test]
    fn percentiles_are_nearest_rank_in_milliseconds() {
        let ns: Vec<u64> = (1..=100).map(|i| i * 1_000_000).collect();
        assert_eq!(percentile(&ns, 0.50), 50.0);
        assert_eq!(percentile(&ns, 0.99), 99.0);
        assert_eq!(percentile(&ns[..1], 0.99), 1.0);
        assert!(percentile(&[], 0.5).is_nan());
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("abapa(holes=4)"), "\"abapa(holes=4)\"");
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }

    #[test]
    fn rng_draws_stay_in_range_and_repeat_with_the_seed() {
        let (mut a, mut b) = (Rng(7), Rng(7));
        let xs: Vec<usize> = (0..1000).map(|_| a.below(6)).collect();
        assert!(xs.iter().all(|&x| x < 6));
        assert_eq!(xs, (0..1000).map(|_| b.below(6)).collect::<Vec<_>>());
        assert!((0..6).all(|k| xs.contains(&k)));
    }
}
