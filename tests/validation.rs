//! One test per row of the input-validation table in `book/src/validation.md`: every flag and
//! library constructor, each class of invalid value, and the error it gets. Command-line rows
//! run the binary and check exit status 2 and the message; a last test checks that the book's
//! table lists every command-line row, so the two cannot drift apart.

use bloomlab::bits::BitVec;
use bloomlab::filters::ConcurrentBloom;
use bloomlab::hash::{AnyHasher, AnyStrategy, HashId, StrategyId, Xxh3};
use bloomlab::persist::{self, LoadOptions, SaveOptions};
use bloomlab::{AnyFilter, Error, Filter, FilterKind, FilterSpec, Param, StandardBloom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

/// A directory with the files the command-line rows refer to.
fn fixtures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validation-fixtures");
        std::fs::create_dir_all(&d).unwrap();
        let keys: String = (0..1000).map(|i| format!("key-{i}\n")).collect();
        std::fs::write(d.join("keys.txt"), keys).unwrap();
        std::fs::write(d.join("empty.txt"), "\n\n").unwrap();
        std::fs::write(d.join("k.hex"), "00112233445566778899aabbccddeeff\n").unwrap();
        std::fs::write(d.join("k2.hex"), "ffeeddccbbaa99887766554433221100\n").unwrap();
        std::fs::write(d.join("bad.hex"), "not a key\n").unwrap();
        std::fs::write(d.join("notafilter.bloom"), "hello, world\n").unwrap();
        let mut f = StandardBloom::with_rate(1000, 0.01).unwrap();
        f.insert_new(b"key-1");
        persist::save(&f, d.join("f.bloom"), &SaveOptions::default()).unwrap();
        let mut b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
        b.truncate(b.len() - 100);
        std::fs::write(d.join("truncated.bloom"), &b).unwrap();
        let key = [
            0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
            0xee, 0xff,
        ];
        let s = StandardBloom::keyed(1000, 0.01, key).unwrap();
        persist::save(&s, d.join("keyed.bloom"), &SaveOptions::default()).unwrap();
        // A user's database (no bloomlab_demo marker) that `redis penetration` must refuse.
        #[cfg(feature = "redis")]
        if !d.join("foreign.sqlite").exists() {
            rusqlite::Connection::open(d.join("foreign.sqlite"))
                .unwrap()
                .execute_batch(
                    "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT);
                     INSERT INTO products VALUES (1, 'mine');",
                )
                .unwrap();
        }
        std::fs::write(d.join("tiny.toml"), TINY_SPEC).unwrap();
        let long = format!("short\n{}\n", "x".repeat(65_537));
        std::fs::write(d.join("long.txt"), long).unwrap();
        std::fs::write(d.join("zero.hex"), "00000000000000000000000000000000\n").unwrap();
        std::fs::write(d.join("plus.hex"), "+0112233445566778899aabbccddeeff\n").unwrap();
        std::fs::write(d.join("long.hex"), "00112233445566778899aabbccddeeff00\n").unwrap();
        let points = TINY_SPEC.replace(
            "values = [0.5, 1.0]",
            "range = { from = 0.1, to = 1.0, points = 4294967295 }",
        );
        std::fs::write(d.join("points.toml"), points).unwrap();
        let queries = TINY_SPEC.replace("[[filters]]", "queries = 20000000000\n[[filters]]");
        std::fs::write(d.join("queries.toml"), queries).unwrap();
        let seed = TINY_SPEC.replace(
            "kind = \"standard\"",
            "kind = \"standard\"\nhash = \"murmur3\"\nseed = 4294967296",
        );
        std::fs::write(d.join("seed.toml"), seed).unwrap();
        // Starting with a key (not a blank line): the parser's span of the missing table is
        // then not the whole document, which is how it was reported as the first key's.
        let noplot = TINY_SPEC[..TINY_SPEC.find("[plot]").unwrap()].trim_start();
        std::fs::write(d.join("noplot.toml"), noplot).unwrap();
        let noname = TINY_SPEC.replace("name = \"tiny\"\n", "");
        std::fs::write(d.join("noname.toml"), noname.trim_start()).unwrap();
        let xor = TINY_SPEC.replace("kind = \"standard\"", "kind = \"xor\"");
        std::fs::write(d.join("xorfill.toml"), xor).unwrap();
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/guava/vectors/mitz64_string_n1000_p0_01_i1000.bin"
            ),
            d.join("g.bin"),
        )
        .unwrap();
        d
    })
}

/// An experiment that runs in well under a second with `--quick` (shared with the binary's
/// output-path test).
const TINY_SPEC: &str = include_str!("data/tiny-spec.toml");

/// Where a command's standard output goes.
#[derive(Clone, Copy, Debug)]
enum Stdout {
    /// A pipe the test reads (and ignores).
    Piped,
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose reading end is closed before the command starts: every write fails with
    /// EPIPE.
    Closed,
}

/// Run `bloomlab args` in `dir` with standard input empty and standard output as `out`.
fn run_in(dir: &Path, args: &str, out: Stdout) -> std::process::Output {
    let argv: Vec<&str> = args.split_whitespace().collect();
    let mut c = Command::new(env!("CARGO_BIN_EXE_bloomlab"));
    c.args(&argv).current_dir(dir).stdin(Stdio::null());
    match out {
        Stdout::Piped => {}
        Stdout::Full => {
            c.stdout(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            );
        }
        Stdout::Closed => {
            let (r, w) = std::io::pipe().unwrap();
            drop(r);
            c.stdout(w);
        }
    }
    c.output().expect("binary runs")
}

/// Run `bloomlab args` in the fixtures directory; expect exit status 2 and a one-line error on
/// stderr containing `fragment`.
fn refuses(args: &str, fragment: &str) {
    refuses_in(fixtures(), args, fragment, Stdout::Piped);
}

/// Expect the refusal: exit status 2 (bad input), or 3 (a runtime failure) when standard output
/// is full.
fn refuses_in(dir: &Path, args: &str, fragment: &str, out: Stdout) {
    let o = run_in(dir, args, out);
    let err = String::from_utf8_lossy(&o.stderr);
    let code = if matches!(out, Stdout::Full) { 3 } else { 2 };
    assert_eq!(o.status.code(), Some(code), "bloomlab {args}: stderr {err}");
    assert!(
        err.contains(fragment),
        "bloomlab {args}: expected '{fragment}' in: {err}"
    );
    assert!(!err.contains("panicked"), "bloomlab {args} panicked: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}

macro_rules! cli_rows {
    ($($name:ident: $args:literal => $frag:literal;)*) => {
        cli_rows! { @ CLI_ROWS #[cfg(all())] $($name: $args => $frag;)* }
    };
    // Rows whose tests need a feature: the table (for the book check) is always there.
    (@ $rows:ident #[$when:meta] $($name:ident: $args:literal => $frag:literal;)*) => {
        /// Command-line rows: (test name, arguments, message fragment).
        const $rows: &[(&str, &str, &str)] = &[$((stringify!($name), $args, $frag)),*];
        $(
            #[$when]
            #[test]
            fn $name() {
                refuses($args, $frag);
            }
        )*
    };
}

cli_rows! {
    // calc
    calc_n_zero: "calc --n 0 --p 0.01" => "'--n <N>': '0' is below 1";
    calc_n_negative: "calc --n -5 --p 0.01" => "'--n <N>': '-5' is negative";
    calc_n_fraction: "calc --n 2.5 --p 0.01" => "'--n <N>': '2.5' is not a whole number";
    calc_n_text: "calc --n abc --p 0.01" => "'--n <N>': 'abc' is not a number";
    calc_p_zero: "calc --n 1000 --p 0" => "'--p <P>': '0' is not strictly between 0 and 1";
    calc_p_one: "calc --n 1000 --p 1" => "'--p <P>': '1' is not strictly between 0 and 1";
    calc_p_negative_percent: "calc --n 1000 --p -1%" => "'--p <P>': '-1%' is negative";
    calc_p_nan: "calc --n 1000 --p NaN" => "'--p <P>': 'NaN' is not a number";
    calc_p_division_by_zero: "calc --n 1000 --p 1/0" => "'--p <P>': '1/0' divides by zero";
    calc_p_text: "calc --n 1000 --p abc" => "'--p <P>': 'abc' is not a number (valid: a probability strictly between 0 and 1: 0.01, 1%, 1/100, 1 in 100 or 1e-30)";
    calc_m_zero: "calc --n 5 --m 0" => "'--m <M>': '0' is below 1 bit";
    calc_m_unknown_unit: "calc --n 5 --m 12parsecs" => "'--m <M>': '12parsecs' has an unknown unit 'parsecs'";
    calc_m_too_large: "calc --n 5 --m 1e30" => "'--m <M>': '1e30' is too large (above 2^64 - 1)";
    calc_k_zero: "calc --n 5 --p 0.1 --k 0" => "'--k <K>': '0' is below 1 (valid: a whole number from 1 to 64)";
    calc_k_too_large: "calc --n 5 --p 0.1 --k 65" => "'--k <K>': '65' is above 64 (valid: a whole number from 1 to 64)";
    calc_nothing_given: "calc" => "give at least p, or n with p or m";
    calc_n_alone: "calc --n 5" => "give p or m together with n";
    calc_m_overflows: "calc --n 1e18 --p 1e-300" => "small enough that m fits in 64 bits";
    calc_unknown_flag: "calc --bogus" => "unexpected argument '--bogus'";
    calc_n_p_and_m: "calc --n 1000 --p 0.01 --m 1MB" => "invalid --n/--p/--m: given together (valid: two of them: n and p give m, n and m give p, m and p give n)";
    calc_unknown_rule: "calc --n 1000 --p 0.01 --rule bogus" => "invalid --rule: bogus (valid: guava, redisbloom, redisbloom-nonscaling, parquet, optimal or all)";
    calc_rule_without_p: "calc --n 1000 --rule guava" => "invalid --rule: guava (valid: together with --n and --p)";
    calc_rule_with_m: "calc --n 1000 --p 0.01 --rule guava --m 1MB" => "invalid --rule/--m/--k: given together";
    calc_unknown_filter: "calc --n 1000 --p 0.01 --filter bogus" => "unknown filter 'bogus' (known: standard, counting, blocked, split-block, scalable, cuckoo, xor, binary-fuse, ribbon, quotient, multiblock, prefix)";
    calc_filter_without_p: "calc --n 1000 --filter cuckoo" => "invalid --filter: cuckoo (valid: together with --n and --p (or --fingerprint-bits for a width))";
    calc_width_without_filter: "calc --n 1000 --fingerprint-bits 12" => "invalid fingerprint-bits: 12 (valid: only with --filter cuckoo, xor, binary-fuse";
    calc_width_not_taken: "calc --filter blocked --n 1000 --fingerprint-bits 12" => "invalid fingerprint-bits: 12 (valid: not used by blocked";
    calc_width_xor_not_8_or_16: "calc --filter xor --n 1000 --fingerprint-bits 12" => "invalid fingerprint-bits: 12 (valid: 8 or 16";
    measure_width_for_a_kind_without_one: "measure --n 100 --fingerprint-bits 12" => "invalid p: none (valid: give p (or m))";
    // measure
    measure_unknown_filter: "measure --n 100 --p 0.01 --filter bogus" => "unknown filter 'bogus'";
    // choose: constraints no filter meets, refused before any measurement
    choose_p_above_one: "choose --n 1000 --p 1.5" => "'--p <P>': '1.5' is not strictly between 0 and 1";
    choose_p_zero: "choose --n 1000 --p 0" => "'--p <P>': '0' is not strictly between 0 and 1";
    choose_memory_too_small: "choose --n 1000000 --memory 100kB" => "invalid memory: 100000 B (valid: more than 1 bit per key for n = 1000000";
    choose_bits_per_key_too_small: "choose --n 1000 --bits-per-key 0.5" => "invalid bits-per-key: 0.5 (valid: more than 1 bit per key";
    choose_deletes_and_grows: "choose --n 1000 --p 1% --deletes --grows" => "invalid constraints: --deletes with --grows (valid: no filter kind both removes keys and keeps its rate while growing";
    choose_rate_no_kind_reaches: "choose --n 1000 --p 1e-300 --grows" => "no admitted kind reaches p =";
    choose_negative_cost_unit: "choose --n 1000 --p 1% --negative-cost 5parsecs" => "'5parsecs' (valid: a duration >= 0: 50ns, 10us, 1ms, 2s";
    choose_hit_ratio_above_one: "choose --n 1000 --p 1% --hit-ratio 2" => "'2' is out of range: a share from 0 to 1";
    measure_p_below_the_cuckoo_floor_is_printed_short: "measure --n 1000 --p 1e-300 --filter cuckoo" => "invalid p: 1e-300 (valid: at least 1.863e-9 for a cuckoo filter";
    measure_p_below_the_xor_floor_is_printed_short: "measure --n 1000 --p 1e-300 --filter xor" => "invalid p: 1e-300 (valid: p >= 2^-16";
    measure_capacity_beyond_64_bits: "measure --n 100 --p 0.01 --capacity 18446744073709551615" => "invalid capacity: 18446744073709551615 (valid: small enough that m fits in 64 bits)";
    choose_bits_per_key_beyond_2_63_bits: "choose --n 1000 --bits-per-key 1e26" => "invalid bits-per-key: 1e26 (valid: at most 2^63 bits in all: up to 9223372036854776 bits per key for n = 1000)";
    choose_negative_cost_negative_zero: "choose --n 1000 --p 1% --negative-cost -0" => "'-0' is negative (valid: a duration >= 0";
    choose_negative_cost_underflow: "choose --n 1000 --p 1% --negative-cost 1e-999" => "'1e-999' is too small for a 64-bit float (it would be 0: give 0 for no cost)";
    measure_unknown_hash: "measure --n 100 --p 0.01 --hash bogus" => "unknown hash 'bogus'";
    measure_unknown_strategy: "measure --n 100 --p 0.01 --strategy bogus" => "unknown strategy 'bogus'";
    measure_unknown_key_kind: "measure --n 100 --p 0.01 --keys bogus" => "unknown key kind 'bogus'";
    measure_n_missing: "measure --p 0.01" => "required arguments were not provided: --n <N>";
    measure_n_zero: "measure --n 0 --p 0.01" => "'--n <N>': '0' is below 1";
    measure_n_beyond_key_space: "measure --n 1e19 --p 0.01" => "invalid n: 10000000000000000000";
    measure_capacity_zero: "measure --n 100 --capacity 0 --p 0.01" => "'--capacity <CAPACITY>'";
    measure_p_and_m_missing: "measure --n 100" => "required arguments were not provided: --p <P>";
    measure_p_and_m_both: "measure --n 100 --p 0.01 --m 1000" => "'--p <P>' cannot be used with '--m <M>'";
    measure_m_absurd: "measure --n 100 --m 1e19" => "cannot allocate 1250000000000000000 bytes";
    measure_k_zero: "measure --n 100 --m 1000 --k 0" => "'--k <K>': '0' is below 1 (valid: a whole number from 1 to 64)";
    measure_queries_zero: "measure --n 100 --p 0.01 --queries 0" => "'--queries <QUERIES>': '0' is below 1";
    measure_trials_zero: "measure --n 100 --p 0.01 --trials 0" => "'--trials <TRIALS>': '0' is below 1 (valid: a whole number from 1 to 10,000,000)";
    measure_trials_too_many: "measure --n 100 --p 0.01 --trials 20000000" => "'--trials <TRIALS>': '20000000' is above 10,000,000";
    measure_seed_negative: "measure --n 100 --p 0.01 --seed -1" => "'--seed <SEED>'";
    measure_fingerprint_bits: "measure --n 100 --p 0.01 --fingerprint-bits 33" => "'33' is not a fingerprint width (valid: 4 to 32 for cuckoo";
    measure_quotient_fingerprint_bits: "measure --n 100 --p 0.01 --filter quotient --fingerprint-bits 0x" => "fingerprint";
    measure_bucket_size: "measure --filter cuckoo --n 100 --p 0.01 --bucket-size 3" => "invalid value '3' for '--bucket-size <BUCKET_SIZE>': '3' is not a bucket size (valid: 2, 4 or 8";
    measure_growth_one: "measure --n 100 --p 0.01 --growth 1" => "'1' is out of range (valid: a number > 1 and <= 16";
    measure_tightening_one: "measure --n 100 --p 0.01 --tightening 1" => "'--tightening <TIGHTENING>': '1' is not strictly between 0 and 1";
    // build
    build_keys_missing: "build --p 0.01 --out x.bloom" => "required arguments were not provided: --keys <KEYS>";
    build_out_missing: "build --keys keys.txt --p 0.01" => "required arguments were not provided: --out <OUT>";
    build_p_and_m_missing: "build --keys keys.txt --out x.bloom" => "required arguments were not provided: --p <P>";
    build_keys_unreadable: "build --keys nope.txt --p 0.01 --out x.bloom" => "i/o error on nope.txt";
    build_keys_empty: "build --keys empty.txt --p 0.01 --out x.bloom" => "a file with at least one non-empty line";
    build_keys_empty_given_n: "build --keys empty.txt --n 10 --p 0.01 --out x.bloom" => "a file with at least one non-empty line (a filter of no keys would answer 'absent' for every key)";
    build_keys_empty_static: "build --keys empty.txt --filter xor --p 0.01 --out x.bloom" => "a file with at least one non-empty line (a filter of no keys would answer 'absent' for every key)";
    build_keys_empty_ribbon: "build --keys empty.txt --filter ribbon --p 0.01 --out x.bloom" => "a file with at least one non-empty line";
    build_stdin_without_n: "build --keys - --p 0.01 --out x.bloom" => "give --n when keys come from standard input";
    build_n_zero: "build --keys keys.txt --n 0 --p 0.01 --out x.bloom" => "'--n <N>': '0' is below 1";
    build_p_out_of_range: "build --keys keys.txt --p 2 --out x.bloom" => "'--p <P>': '2' is not strictly between 0 and 1";
    build_m_absurd: "build --keys keys.txt --m 1e19 --out x.bloom" => "cannot allocate 1250000000000000000 bytes";
    build_k_too_large: "build --keys keys.txt --p 0.01 --k 100 --out x.bloom" => "'--k <K>': '100' is above 64";
    build_cuckoo_given_m: "build --keys keys.txt --m 1000 --filter cuckoo --out x.bloom" => "not used by cuckoo";
    build_cuckoo_table_past_2_64_bits: "build --keys keys.txt --filter cuckoo --n 1e18 --fingerprint-bits 32 --p 0.01 --out x.bloom" => "invalid n: 1000000000000000000 (valid: at most about 5.42e17 items for a cuckoo filter with 32-bit fingerprints";
    build_unknown_hash: "build --keys keys.txt --p 0.01 --hash md5 --out x.bloom" => "unknown hash 'md5'";
    build_key_file_unkeyed_hash: "build --keys keys.txt --p 0.01 --key-file k.hex --out x.bloom" => "a secret key needs a keyed hash";
    build_key_file_malformed: "build --keys keys.txt --p 0.01 --hash sip24 --key-file bad.hex --out x.bloom" => "exactly 32 hex digits";
    build_key_file_and_seed: "build --keys keys.txt --p 0.01 --hash sip24 --key-file k.hex --seed 5 --out x.bloom" => "'--key-file <KEY_FILE>' cannot be used with '--seed <SEED>'";
    build_store_key_without_key: "build --keys keys.txt --p 0.01 --store-key --out x.bloom" => "required arguments were not provided: --key-file";
    build_out_dir_missing: "build --keys keys.txt --p 0.01 --out no/such/dir/x.bloom" => "cannot create a temporary file in no/such/dir";
    // query
    query_filter_missing: "query" => "required arguments were not provided: <FILTER>";
    query_no_keys: "query f.bloom" => "required arguments were not provided: <KEY>...";
    query_keys_and_list: "query f.bloom a --keys keys.txt" => "cannot be used with '--keys <KEYS>'";
    query_file_missing: "query nope.bloom a" => "i/o error on nope.bloom";
    query_not_a_filter: "query notafilter.bloom a" => "not a bloomlab filter file (wrong magic bytes";
    query_truncated: "query truncated.bloom a" => "truncated";
    query_other_hash: "query f.bloom a --hash murmur3" => "saved with hash 'xxh3', but 'murmur3' was asked for";
    query_unknown_hash: "query f.bloom a --hash bogus" => "unknown hash 'bogus'";
    query_key_withheld: "query keyed.bloom a" => "withholds its secret sip24 key";
    query_wrong_key: "query keyed.bloom a --key-file k2.hex" => "wrong key for this filter file";
    query_key_file_malformed: "query keyed.bloom a --key-file bad.hex" => "exactly 32 hex digits";
    query_keys_unreadable: "query f.bloom --keys nope.txt" => "i/o error on nope.txt";
    // bounded input: no command reads without limit or starts work it cannot finish
    build_keys_line_too_long: "build --keys long.txt --p 0.01 --out x.bloom" => "invalid keys: long.txt: line 2 is longer than 65536 bytes (valid: lines (keys) of at most 65,536 bytes)";
    build_keys_without_newline: "build --keys /dev/zero --p 0.01 --out x.bloom" => "invalid keys: /dev/zero: line 1 is longer than 65536 bytes";
    build_keys_without_newline_given_n: "build --keys /dev/zero --n 10 --p 0.01 --out x.bloom" => "invalid keys: /dev/zero: line 1 is longer than 65536 bytes";
    build_static_checks_p_before_reading_keys: "build --keys /dev/zero --filter xor --p 1e-6 --out x.bloom" => "invalid p: 0.000001 (valid: p >= 2^-16 = 1.526e-5";
    query_keys_line_too_long: "query f.bloom --keys long.txt" => "invalid keys: long.txt: line 2 is longer than 65536 bytes";
    build_key_file_endless: "build --keys keys.txt --p 0.01 --hash sip24 --key-file /dev/zero --out x.bloom" => "invalid key-file: /dev/zero (valid: a file holding exactly 32 hex digits";
    build_key_file_too_long: "build --keys keys.txt --p 0.01 --hash sip24 --key-file long.hex --out x.bloom" => "invalid key-file: long.hex (valid: a file holding exactly 32 hex digits";
    measure_queries_too_many: "measure --n 100 --p 0.01 --queries 1e19" => "'--queries <QUERIES>': '1e19' is above 10,000,000,000";
    measure_trials_times_queries: "measure --n 100 --p 0.01 --queries 1e10 --trials 100" => "invalid trials: 100 trials × (100 inserts + 10000000000 queries + as many hit checks) (valid: at most 10^11 key operations in all";
    run_points_too_many: "run points.toml" => "sweep.range: points from 1 to 10000";
    run_queries_too_many: "run queries.toml" => "queries: an integer from 1 to 10^10";
    run_missing_plot_table: "run noplot.toml" => "noplot.toml:1:1: plot: missing field `plot`";
    run_missing_name: "run noname.toml" => "noname.toml:1:1: name: missing field `name`";
    run_static_kind_over_fill: "run xorfill.toml" => "xor is static: it is built from its whole key set at its n (no inserts into an empty filter, no fill past n), which";
    // weak or malformed keys
    build_key_file_all_zero: "build --keys keys.txt --p 0.01 --hash sip24 --key-file zero.hex --out x.bloom" => "invalid key-file: zero.hex (valid: a key that is not all zero";
    build_key_file_plus_sign: "build --keys keys.txt --p 0.01 --hash sip24 --key-file plus.hex --out x.bloom" => "invalid key-file: plus.hex (valid: a file holding exactly 32 hex digits";
    query_key_file_all_zero: "query keyed.bloom a --key-file zero.hex" => "invalid key-file: zero.hex (valid: a key that is not all zero";
    // seeds are never cut silently
    build_murmur3_seed_too_wide: "build --keys keys.txt --p 0.01 --hash murmur3 --seed 4294967296 --out x.bloom" => "invalid seed: 4294967296 (valid: 0 to 4,294,967,295 for murmur3 (its seed is 32 bits wide))";
    run_murmur3_seed_too_wide: "run seed.toml" => "filters[0].seed: 0 to 4,294,967,295 for murmur3";
    run_all_outside_the_project: "run --all --quick" => "invalid dir: experiments (valid: a directory of experiment specs: run --all from the project root";
    // Guava files
    query_guava_file_as_own_format: "query g.bin key-0" => "a Guava filter: `bloomlab query --format guava`";
    query_guava_with_key_file: "query --format guava g.bin a --key-file k.hex" => "no key file with --format guava";
    query_guava_other_hash: "query --format guava g.bin a --hash xxh3" => "saved with hash 'murmur3', but 'xxh3' was asked for";
    query_guava_not_guava: "query --format guava notafilter.bloom a" => "unknown Guava strategy ordinal";
    query_guava_endless: "query --format guava /dev/zero a" => "Guava filter has 0 hash functions";
    query_unknown_format: "query --format bogus f.bloom a" => "invalid value 'bogus' for '--format <FORMAT>'";
    // diagram
    diagram_unknown_name: "diagram bogus" => "invalid diagram: 'bogus' (valid: one of standard, blocked, split-block, counting, cuckoo, scalable, xor, binary-fuse, quotient";
    diagram_no_name: "diagram" => "invalid diagram: (none given) (valid: a name: one of standard";
    diagram_out_in_a_missing_directory: "diagram standard --out nodir/x.svg" => "i/o error on nodir/x.svg: cannot create a temporary file in nodir";
    diagram_name_and_all: "diagram standard --all --out-dir d" => "the argument '[NAME]' cannot be used with '--all'";
}

// Standard output that cannot be written. `/dev/full` (ENOSPC): one line naming standard
// output, exit 2. A closed pipe (EPIPE, `bloomlab … | head`): exit 0, nothing on stderr.
macro_rules! full_rows {
    ($($name:ident: $args:literal => $frag:literal;)*) => {
        /// Every row run with standard output on `/dev/full`.
        const FULL_ROWS: &[(&str, &str, &str)] = &[$((stringify!($name), $args, $frag)),*];
        $(
            #[test]
            fn $name() {
                refuses_in(fixtures(), $args, $frag, Stdout::Full);
            }
        )*
    };
}

const NO_SPACE: &str = "i/o error on standard output: No space left on device";

full_rows! {
    stdout_full_calc: "calc --n 5 --p 0.1" => "i/o error on standard output: No space left on device";
    stdout_full_calc_json: "calc --n 5 --p 0.1 --json" => "i/o error on standard output: No space left on device";
    stdout_full_measure: "measure --n 1000 --p 0.01 --queries 1000" => "i/o error on standard output: No space left on device";
    stdout_full_measure_json: "measure --n 1000 --p 0.01 --queries 1000 --json" => "i/o error on standard output: No space left on device";
    stdout_full_walkthrough: "walkthrough" => "i/o error on standard output: No space left on device";
    stdout_full_guide: "" => "i/o error on standard output: No space left on device";
    stdout_full_help: "--help" => "i/o error on standard output: No space left on device";
    stdout_full_build: "build --keys keys.txt --p 0.01 --out full-build.bloom" => "i/o error on standard output: No space left on device";
    stdout_full_query: "query f.bloom key-1" => "i/o error on standard output: No space left on device";
    stdout_full_run: "run tiny.toml --quick --out full-run" => "i/o error on standard output: No space left on device";
    stdout_full_diagram: "diagram standard" => "i/o error on standard output: No space left on device";
}

macro_rules! closed_pipe_rows {
    ($($name:ident: $args:literal => $code:literal;)*) => {
        /// Every row run with standard output on a closed pipe.
        const PIPE_ROWS: &[(&str, &str)] = &[$((stringify!($name), $args)),*];
        $(
            #[test]
            fn $name() {
                let o = run_in(fixtures(), $args, Stdout::Closed);
                let err = String::from_utf8_lossy(&o.stderr);
                assert_eq!(o.status.code(), Some($code), "bloomlab {}: {err}", $args);
                assert!(err.is_empty(), "bloomlab {}: {err}", $args);
            }
        )*
    };
}

closed_pipe_rows! {
    closed_pipe_calc: "calc --n 5 --p 0.1" => 0;
    closed_pipe_measure: "measure --n 1000 --p 0.01 --queries 1000" => 0;
    closed_pipe_walkthrough: "walkthrough" => 0;
    closed_pipe_guide: "" => 0;
    closed_pipe_build: "build --keys keys.txt --p 0.01 --out pipe-build.bloom" => 0;
    closed_pipe_run: "run tiny.toml --quick --out pipe-run" => 0;
    closed_pipe_query_answers_by_status: "query f.bloom key-1" => 0;
    closed_pipe_diagram: "diagram standard" => 0;
}

// Files that must not be replaced. Each row runs in a fresh scratch directory of its own
// ([`scratch`]); afterwards every file there is checked unchanged ([`assert_untouched`]).

/// A fresh directory under the target dir with: `keys.txt`, `k.hex`, `tiny.toml`; `fifo` (a
/// FIFO); `link.bloom` (a symbolic link to nothing), `keys-link.txt` (to `keys.txt`);
/// `readonly.bloom` (mode 0444); `adir/` (a directory); `res/tiny.csv` (a link to
/// `victim.csv`); `spec.csv` (a spec whose name is `spec`, so its CSV output is itself).
fn scratch(name: &str) -> PathBuf {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("validation-files")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("adir")).unwrap();
    std::fs::create_dir_all(d.join("res")).unwrap();
    let keys: String = (0..1000).map(|i| format!("key-{i}\n")).collect();
    std::fs::write(d.join("keys.txt"), keys).unwrap();
    std::fs::write(d.join("k.hex"), "00112233445566778899aabbccddeeff\n").unwrap();
    std::fs::write(d.join("tiny.toml"), TINY_SPEC).unwrap();
    std::fs::write(
        d.join("spec.csv"),
        TINY_SPEC.replace("\"tiny\"", "\"spec\""),
    )
    .unwrap();
    let st = Command::new("mkfifo").arg(d.join("fifo")).status().unwrap();
    assert!(st.success(), "mkfifo");
    symlink("target.bloom", d.join("link.bloom")).unwrap();
    symlink("keys.txt", d.join("keys-link.txt")).unwrap();
    std::fs::write(d.join("readonly.bloom"), "old").unwrap();
    std::fs::set_permissions(
        d.join("readonly.bloom"),
        std::fs::Permissions::from_mode(0o444),
    )
    .unwrap();
    std::fs::write(d.join("victim.csv"), "victim").unwrap();
    symlink("../victim.csv", d.join("res/tiny.csv")).unwrap();
    d
}

/// Everything [`scratch`] made is as it made it, and no temporary file is left.
fn assert_untouched(d: &Path) {
    use std::os::unix::fs::FileTypeExt;
    let lt = |p: &str| std::fs::symlink_metadata(d.join(p)).unwrap().file_type();
    assert!(lt("fifo").is_fifo(), "fifo replaced");
    assert!(lt("link.bloom").is_symlink(), "link replaced");
    assert!(!d.join("target.bloom").exists(), "written through the link");
    assert!(lt("res/tiny.csv").is_symlink(), "res/tiny.csv replaced");
    assert!(lt("adir").is_dir());
    let read = |p: &str| std::fs::read_to_string(d.join(p)).unwrap();
    assert_eq!(read("readonly.bloom"), "old");
    assert_eq!(read("victim.csv"), "victim");
    assert!(
        read("keys.txt").starts_with("key-0\nkey-1\n"),
        "keys.txt replaced"
    );
    assert!(read("k.hex").starts_with("0011"), "k.hex replaced");
    assert!(
        read("spec.csv").contains("name = \"spec\""),
        "spec.csv replaced"
    );
    for e in walk(d) {
        assert!(!e.contains("bloomlab-tmp"), "temporary file left: {e}");
    }
}

fn walk(d: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        v.push(e.path().display().to_string());
        if e.file_type().unwrap().is_dir() {
            v.extend(walk(&e.path()));
        }
    }
    v
}

macro_rules! file_rows {
    ($($name:ident: $args:literal => $frag:literal;)*) => {
        /// Every row about a file that must not be replaced.
        const FILE_ROWS: &[(&str, &str, &str)] = &[$((stringify!($name), $args, $frag)),*];
        $(
            #[test]
            fn $name() {
                let d = scratch(stringify!($name));
                refuses_in(&d, $args, $frag, Stdout::Piped);
                assert_untouched(&d);
            }
        )*
    };
}

file_rows! {
    // `--m 1e19` fails (allocation) after the output check, before anything is read or
    // written: the device refusal must come first, and if it did not, nothing is written.
    out_device_refused_before_any_work: "build --keys keys.txt --m 1e19 --out /dev/null" => "i/o error on /dev/null: is a device, not a regular file; refusing to write to it";
    out_fifo: "build --keys keys.txt --p 0.01 --out fifo" => "i/o error on fifo: is a FIFO (named pipe), not a regular file";
    out_symlink: "build --keys keys.txt --p 0.01 --out link.bloom" => "i/o error on link.bloom: is a symbolic link; refusing to replace it (--follow-symlinks writes to the file it points to)";
    out_read_only: "build --keys keys.txt --p 0.01 --out readonly.bloom" => "i/o error on readonly.bloom: is read-only; refusing to replace it";
    out_directory: "build --keys keys.txt --p 0.01 --out adir" => "i/o error on adir: is a directory; refusing to write to it";
    out_is_the_keys: "build --keys keys.txt --p 0.01 --out keys.txt" => "invalid out: keys.txt (valid: a file other than the input --keys keys.txt";
    out_is_the_keys_through_a_link: "build --keys keys-link.txt --p 0.01 --out keys.txt" => "a file other than the input --keys keys-link.txt";
    out_is_the_key_file: "build --keys keys.txt --p 0.01 --hash sip24 --key-file k.hex --out k.hex" => "a file other than the input --key-file k.hex";
    run_out_symlink: "run tiny.toml --quick --out res" => "i/o error on res/tiny.csv: is a symbolic link; refusing to replace it";
    run_out_is_the_spec: "run spec.csv --quick --out ." => "a file other than the input spec spec.csv";
    diagram_out_device: "diagram standard --out /dev/null" => "i/o error on /dev/null: is a device, not a regular file; refusing to write to it";
    diagram_out_fifo: "diagram cuckoo --out fifo" => "i/o error on fifo: is a FIFO (named pipe), not a regular file";
    diagram_out_symlink: "diagram xor --out link.bloom" => "i/o error on link.bloom: is a symbolic link; refusing to replace it";
    diagram_out_read_only: "diagram quotient --out readonly.bloom" => "i/o error on readonly.bloom: is read-only; refusing to replace it";
    diagram_out_directory: "diagram standard --out adir" => "i/o error on adir: is a directory; refusing to write to it";
    diagram_all_into_a_file: "diagram --all --out-dir keys.txt" => "i/o error on keys.txt: is not a directory";
}

#[test]
fn follow_symlinks_writes_the_file_a_link_points_to() {
    let d = scratch("follow_symlinks");
    let o = run_in(
        &d,
        "build --keys keys.txt --p 0.01 --out link.bloom --follow-symlinks",
        Stdout::Piped,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lt = std::fs::symlink_metadata(d.join("link.bloom")).unwrap();
    assert!(lt.file_type().is_symlink(), "the link stays a link");
    let f = AnyFilter::load(d.join("target.bloom"), &LoadOptions::new()).unwrap();
    assert!(f.contains(b"key-7"));
    let o = run_in(
        &d,
        "run tiny.toml --quick --out res --follow-symlinks",
        Stdout::Piped,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::read_to_string(d.join("victim.csv"))
            .unwrap()
            .starts_with("series")
    );
    assert!(
        std::fs::symlink_metadata(d.join("res/tiny.csv"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_replaced_file_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("permissions");
    // An earlier filter (a file of another format is refused, not replaced).
    let old = StandardBloom::with_rate(10, 0.01).unwrap();
    persist::save(&old, d.join("private.bloom"), &SaveOptions::default()).unwrap();
    std::fs::set_permissions(
        d.join("private.bloom"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let o = run_in(
        &d,
        "build --keys keys.txt --p 0.01 --out private.bloom",
        Stdout::Piped,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mode = std::fs::metadata(d.join("private.bloom"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    // The library's writers too (CSV of an experiment, a filter).
    std::fs::set_permissions(
        d.join("private.bloom"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let f = StandardBloom::with_rate(10, 0.01).unwrap();
    persist::save(&f, d.join("private.bloom"), &SaveOptions::default()).unwrap();
    let mode = std::fs::metadata(d.join("private.bloom"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640, "mode {mode:o}");
}

#[test]
fn stale_temporary_files_of_a_dead_process_are_removed_on_the_next_save() {
    let d = scratch("stale");
    // No process has this id (above Linux's largest pid_max, 2^22).
    let dead = [
        ".x.bloom.bloomlab-tmp.2147483647.1.bloom",
        ".x.bloom.2147483646.5.tmp",
    ];
    let alive = format!(".x.bloom.bloomlab-tmp.{}.1.bloom", std::process::id());
    let unrelated = ".x.bloom.notes";
    for n in dead.iter().copied().chain([alive.as_str(), unrelated]) {
        std::fs::write(d.join(n), "partial").unwrap();
    }
    let o = run_in(
        &d,
        "build --keys keys.txt --p 0.01 --out x.bloom",
        Stdout::Piped,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for n in dead {
        assert!(!d.join(n).exists(), "{n} left");
    }
    assert!(
        d.join(&alive).exists(),
        "a live process's temporary file was removed"
    );
    assert!(d.join(unrelated).exists());
}

#[test]
fn sigint_during_a_save_removes_the_temporary_file() {
    // A 50 MB filter: its save takes long enough to be caught (each try polls for the temporary
    // file and interrupts the command as soon as it appears).
    let d = scratch("sigint");
    for attempt in 0..5 {
        let _ = std::fs::remove_file(d.join("big.bloom"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_bloomlab"))
            .args([
                "build",
                "--keys",
                "keys.txt",
                "--m",
                "400Mbit",
                "--out",
                "big.bloom",
            ])
            .current_dir(&d)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let temp = || {
            walk(&d)
                .into_iter()
                .find(|p| p.contains(".big.bloom.bloomlab-tmp."))
        };
        let t0 = std::time::Instant::now();
        while temp().is_none() && t0.elapsed().as_secs() < 60 {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        if temp().is_none() {
            let _ = child.wait();
            eprintln!("attempt {attempt}: the save finished before it was seen");
            continue;
        }
        let st = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let o = child.wait_with_output().unwrap();
        if o.status.code() == Some(0) {
            continue; // the rename won the race
        }
        assert_eq!(
            o.status.code(),
            Some(130),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(temp(), None, "temporary file left after SIGINT");
        assert!(!d.join("big.bloom").exists());
        return;
    }
    panic!("never caught a save in flight in 5 attempts");
}

#[test]
fn library_writers_refuse_what_the_command_line_refuses() {
    // Only checks: nothing is opened for writing.
    let e = persist::check_target(Path::new("/dev/null"), persist::WriteOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("is a device"), "{e}");
    let d = scratch("library");
    let f = StandardBloom::with_rate(10, 0.01).unwrap();
    for (p, frag) in [
        ("fifo", "is a FIFO"),
        ("link.bloom", "is a symbolic link"),
        ("readonly.bloom", "is read-only"),
        ("adir", "is a directory"),
    ] {
        let e = persist::save(&f, d.join(p), &SaveOptions::default()).unwrap_err();
        assert!(e.to_string().contains(frag), "{p}: {e}");
    }
    let t = bloomlab::experiment::Table {
        columns: vec!["a".into()],
        rows: vec![],
    };
    let e = t.write_csv(&d.join("res/tiny.csv")).unwrap_err();
    assert!(e.to_string().contains("is a symbolic link"), "{e}");
    assert_untouched(&d);
}

// `bloomlab redis …` exists with feature `redis` (CI: `cargo test --features redis --test
// validation`). Every row fails before any connection; the URL is a closed port on loopback.
// The unreachable server itself (exit 3) is in
// `redis_outputs_are_refused_before_connecting_and_a_closed_port_is_exit_3`.
cli_rows! { @ REDIS_CLI_ROWS #[cfg(feature = "redis")]
    redis_compare_n_zero: "redis compare --url redis://127.0.0.1:1 --n 0" => "'--n <N>': '0' is below 1 (valid: a whole number from 1 to 1,000,000,000)";
    redis_compare_n_too_large: "redis compare --url redis://127.0.0.1:1 --n 549755813888" => "'--n <N>': '549755813888' is above 1,000,000,000";
    redis_compare_queries_too_large: "redis compare --url redis://127.0.0.1:1 --queries 1e10" => "'--queries <QUERIES>': '1e10' is above 1,000,000,000";
    redis_compare_batch_zero: "redis compare --url redis://127.0.0.1:1 --batch 0" => "'--batch <BATCH>': '0' is below 1 (valid: a whole number from 1 to 100,000)";
    redis_compare_batch_too_large: "redis compare --url redis://127.0.0.1:1 --batch 4611686018427387904" => "'--batch <BATCH>': '4611686018427387904' is above 100,000";
    redis_compare_unknown_transport: "redis compare --url redis://127.0.0.1:1 --transport bogus" => "unknown transport 'bogus'";
    redis_penetration_products_too_large: "redis penetration --url redis://127.0.0.1:1 --products 1e8" => "'--products <PRODUCTS>': '1e8' is above 10,000,000";
    redis_penetration_requests_too_large: "redis penetration --url redis://127.0.0.1:1 --requests 1e12" => "'--requests <REQUESTS>': '1e12' is above 10,000,000";
    redis_penetration_missing_pool_too_large: "redis penetration --url redis://127.0.0.1:1 --missing-pool 2^60" => "'--missing-pool <MISSING_POOL>': '2^60' is above 1,125,899,906,842,624";
    redis_penetration_null_ttl_zero: "redis penetration --url redis://127.0.0.1:1 --null-ttl 0" => "'--null-ttl <NULL_TTL>': '0' is below 1 (valid: a whole number from 1 to 31,536,000)";
    redis_penetration_null_ttl_too_large: "redis penetration --url redis://127.0.0.1:1 --null-ttl 1e9" => "'--null-ttl <NULL_TTL>': '1e9' is above 31,536,000";
    redis_penetration_missing_share_above_one: "redis penetration --url redis://127.0.0.1:1 --missing-share 2" => "invalid missing-share: 2 (valid: a share from 0 to 1)";
    redis_penetration_foreign_database: "redis penetration --url redis://127.0.0.1:1 --db foreign.sqlite" => "invalid db: foreign.sqlite exists and was not created by this demo (it has no bloomlab_demo table)";
}

// Exit status 2 (fix the command) against 3 (retry later): `bloomlab --help` and the README.

/// An output refused before any work is bad input; the same command with a usable output then
/// fails to connect: a runtime failure.
#[cfg(feature = "redis")]
#[test]
fn redis_outputs_are_refused_before_connecting_and_a_closed_port_is_exit_3() {
    let d = scratch("redis_exit_status");
    rusqlite::Connection::open(d.join("user.sqlite"))
        .unwrap()
        .execute_batch(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY); INSERT INTO orders VALUES (7);",
        )
        .unwrap();
    let before = std::fs::read(d.join("user.sqlite")).unwrap();
    let url = "--url redis://127.0.0.1:1";
    let pen = format!("redis penetration {url} --products 10 --requests 10");
    let cmp = format!("redis compare {url} --n 10 --no-module");
    for (args, frag) in [
        (
            format!("{pen} --out user.sqlite"),
            "i/o error on user.sqlite: holds a SQLite database, not text; refusing to replace it",
        ),
        (
            format!("{cmp} --out link.bloom"),
            "i/o error on link.bloom: is a symbolic link; refusing to replace it",
        ),
        (
            format!("{cmp} --out fifo"),
            "i/o error on fifo: is a FIFO (named pipe), not a regular file",
        ),
        (
            format!("{pen} --db x.sqlite --out x.sqlite"),
            "invalid out: x.sqlite (valid: a file other than the input --db x.sqlite",
        ),
        (
            format!("{pen} --out y.csv --db y.csv"),
            "invalid out: y.csv (valid: a file other than the input --db y.csv",
        ),
    ] {
        let t = std::time::Instant::now();
        refuses_in(&d, &args, frag, Stdout::Piped);
        assert!(t.elapsed().as_secs() < 10, "{args}: {:?}", t.elapsed());
    }
    assert_eq!(std::fs::read(d.join("user.sqlite")).unwrap(), before);
    assert!(!d.join("x.sqlite").exists());
    assert_untouched(&d);
    // The book's row "compare: server unreachable" is the first.
    for args in [cmp.clone(), format!("{pen} --out p.csv")] {
        let o = run_in(&d, &args, Stdout::Piped);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "bloomlab {args}: {err}");
        assert!(err.contains("127.0.0.1:1: cannot connect"), "{args}: {err}");
    }
}

/// An output in a directory this user cannot create a file in is refused before any work (exit
/// 2, the directory left empty). As root the directory is writable and the build succeeds: the
/// check asks the operating system, which is the rule.
#[test]
fn an_output_in_a_read_only_directory_is_refused_before_any_work() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("read_only_dir");
    std::fs::create_dir_all(d.join("ro")).unwrap();
    std::fs::set_permissions(d.join("ro"), std::fs::Permissions::from_mode(0o555)).unwrap();
    let writable = std::fs::write(d.join("ro/probe"), "").is_ok();
    let _ = std::fs::remove_file(d.join("ro/probe"));
    // --m 1e19 fails to allocate after the output check: a refusal must come first.
    let args = "build --keys keys.txt --m 1e19 --out ro/f.bloom";
    let o = run_in(&d, args, Stdout::Piped);
    let err = String::from_utf8_lossy(&o.stderr);
    if writable {
        assert!(err.contains("cannot allocate"), "{err}");
    } else {
        assert!(
            err.contains("i/o error on ro/f.bloom: cannot create a temporary file in ro"),
            "{err}"
        );
    }
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(std::fs::read_dir(d.join("ro")).unwrap().count(), 0);
    std::fs::set_permissions(d.join("ro"), std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn book_table_lists_every_cli_row() {
    let md = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/book/src/validation.md"
    ))
    .expect("book/src/validation.md");
    assert!(md.contains(NO_SPACE));
    for (name, args) in PIPE_ROWS {
        assert!(
            md.contains(&format!(
                "`{}` | closed pipe",
                format!("bloomlab {args}").trim_end()
            )),
            "{name}: `bloomlab {args}` (closed pipe) missing from the book's table"
        );
    }
    for (name, args, frag) in CLI_ROWS
        .iter()
        .chain(FULL_ROWS)
        .chain(FILE_ROWS)
        .chain(REDIS_CLI_ROWS)
    {
        assert!(
            md.contains(&format!("`{}`", format!("bloomlab {args}").trim_end())),
            "{name}: `bloomlab {args}` missing from the book's table"
        );
        assert!(
            md.contains(frag),
            "{name}: message '{frag}' missing from the book's table"
        );
    }
}

fn stdout_of(args: &str) -> (Option<i32>, String) {
    let o = run_in(fixtures(), args, Stdout::Piped);
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("panicked"),
        "{args}"
    );
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn a_sip_seed_without_a_key_file_is_stored_and_the_file_opens() {
    let (code, _) =
        stdout_of("build --keys keys.txt --p 0.01 --hash sip24 --seed 5 --out sip-seed.bloom");
    assert_eq!(code, Some(0));
    let (code, out) = stdout_of("query sip-seed.bloom key-3");
    assert_eq!((code, out.as_str()), (Some(0), "maybe-present\tkey-3\n"));
}

#[test]
fn query_format_guava_answers_as_guava_did() {
    // The vector's JSON holds Guava's own mightContain answers for 100 inserted and 1000 absent
    // keys: every "1" must be maybe-present here, and every "0" absent.
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/guava/vectors/mitz64_string_n1000_p0_01_i1000.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let keys: Vec<String> = json["query_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    let answers = json["answers"].as_str().unwrap();
    std::fs::write(fixtures().join("guava-keys.txt"), keys.join("\n") + "\n").unwrap();
    let (code, out) = stdout_of("query --format guava g.bin --keys guava-keys.txt");
    assert_eq!(code, Some(0));
    let got: String = out
        .lines()
        .map(|l| {
            if l.starts_with("maybe-present\t") {
                '1'
            } else {
                '0'
            }
        })
        .collect();
    assert_eq!(got, answers);
}

#[test]
fn measure_says_what_was_really_inserted() {
    let (code, out) =
        stdout_of("measure --filter cuckoo --n 5000 --capacity 1000 --p 0.01 --queries 1000");
    assert_eq!(code, Some(0));
    assert!(
        out.contains("inserted  1,064 of 5,000 keys: 3,936 refused (filter full)"),
        "{out}"
    );
    // 266 buckets of four 10-bit slots, 16 bytes of padding: 1,352 bytes over 1,064 keys.
    assert!(out.contains("10.165 heap bits per key held"), "{out}");
    let (_, out) = stdout_of("measure --n 1 --m 8 --queries 100");
    assert!(
        out.contains(
            "8 heap bytes (8 B), 64.000 heap bits per key held, m/n = 8.000 bits per key held"
        ),
        "{out}"
    );
}

#[test]
fn measure_json_details_are_numbers_where_they_are_numbers() {
    let (_, out) = stdout_of("measure --filter scalable --n 1000 --p 0.01 --queries 1000 --json");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = &v["details"];
    assert_eq!(d["layers"], serde_json::json!(1));
    assert_eq!(d["growth"], serde_json::json!(2));
    assert_eq!(d["tightening"], serde_json::json!(0.5));
    assert_eq!(d["nonscaling"], serde_json::json!(false));
    assert!(d["layers (items/capacity, k, rate)"].is_string());
}

#[test]
fn a_query_key_with_a_newline_prints_one_escaped_line() {
    let o = Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .args(["query", "f.bloom", "zz\nmaybe-present\tkey-1", "a\\b"])
        .current_dir(fixtures())
        .stdin(Stdio::null())
        .output()
        .expect("binary runs");
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "absent\tzz\\nmaybe-present\\tkey-1\nabsent\ta\\\\b\n"
    );
}

/// Peak resident memory (KiB) of `bloomlab args` in `dir`, from `/usr/bin/time`, if present.
fn peak_rss_kib(dir: &Path, args: &[&str]) -> Option<u64> {
    let o = Command::new("/usr/bin/time")
        .args(["-f", "peak-rss-kib %M", env!("CARGO_BIN_EXE_bloomlab")])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&o.stderr);
    err.lines()
        .find_map(|l| l.strip_prefix("peak-rss-kib "))
        .and_then(|v| v.trim().parse().ok())
}

#[test]
fn query_holds_a_filter_file_of_every_bulk_kind_once() {
    // Files of 256 to 300 MiB (at 128 to 150 MiB the program's own 10 to 13 MiB, more with the
    // redis feature, left too little room under the bound): loading them the old way (the file's
    // bytes, then the filter) peaked at twice the file. Bound: the 1.1 × the file, the program's own memory (the
    // peak of a query of a tiny filter, near 10 MiB, printed for comparison) included. Xor and
    // binary fuse files are sized by their keys (tens of millions for a file this large), so
    // they are left to the loader's agreement test below, which decodes them through the same
    // streaming path.
    let d = scratch("query_rss");
    let Some(base) = peak_rss_kib(fixtures(), &["query", "f.bloom", "key-1"]) else {
        eprintln!("no /usr/bin/time: peak not measured");
        return;
    };
    let cases = [
        ("standard", "--m 2400Mbit"),
        ("counting", "--m 600Mbit"),
        ("blocked", "--m 2400Mbit"),
        ("split-block", "--m 2400Mbit"),
        ("scalable", "--n 220000000 --p 0.01"),
        ("cuckoo", "--n 100000000 --p 0.001 --fingerprint-bits 16"),
    ];
    let mut over = Vec::new();
    for (kind, size_args) in cases {
        let o = run_in(
            &d,
            &format!("build --keys keys.txt --filter {kind} {size_args} --out big.bloom"),
            Stdout::Piped,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let size = std::fs::metadata(d.join("big.bloom")).unwrap().len();
        let peak = peak_rss_kib(&d, &["query", "big.bloom", "key-3"]).expect("measured before");
        let _ = std::fs::remove_file(d.join("big.bloom"));
        let file_kib = size as f64 / 1024.0;
        let bound = file_kib * 1.1;
        eprintln!(
            "{kind}: file {file_kib:.0} KiB, peak {peak} KiB ({:.3} × the file; {:.3} less the \
             program's own {base} KiB)",
            peak as f64 / file_kib,
            (peak - base.min(peak)) as f64 / file_kib
        );
        if peak as f64 > bound {
            over.push(format!("{kind}: peak {peak} KiB > bound {bound:.0} KiB"));
        }
    }
    assert!(over.is_empty(), "{over:?}");
}

#[test]
fn the_file_loader_agrees_with_from_bytes_on_every_damaged_file() {
    // AnyFilter::load decodes every kind while reading it (the checksum is compared only at the
    // end); every bit flip and every truncation must get the error (or the filter) that reading
    // the whole file and decoding it gives.
    let d = scratch("loader");
    let path = d.join("m.bloom");
    let check = |bytes: &[u8], what: &str| {
        std::fs::write(&path, bytes).unwrap();
        let from_file = AnyFilter::load(&path, &LoadOptions::new());
        // The old path: read the whole file (persist::read_file), then decode.
        let from_bytes =
            persist::read_file(&path).and_then(|b| AnyFilter::from_bytes(&b, &LoadOptions::new()));
        match (from_file, from_bytes) {
            (Ok(a), Ok(b)) => assert_eq!(
                a.to_bytes(&SaveOptions::default()).unwrap(),
                b.to_bytes(&SaveOptions::default()).unwrap(),
                "{what}"
            ),
            (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
            (a, b) => panic!("{what}: file {:?} vs bytes {:?}", a.err(), b.err()),
        }
    };
    for kind in FilterKind::ALL {
        // Small filters (a few hundred bytes), so every bit of each can be flipped.
        let n = if kind == FilterKind::Standard { 60 } else { 40 };
        let f = FilterSpec::new(kind, n, 0.05)
            .build_from((0u64..n / 2).map(u64::to_le_bytes))
            .unwrap();
        let good = f.to_bytes(&SaveOptions::default()).unwrap();
        check(&good, &format!("{kind}: the good file"));
        let params_len = u32::from_le_bytes(good[40..44].try_into().unwrap()) as usize;
        let head = 52 + params_len + 16;
        for i in 0..good.len() {
            for bit in 0..8 {
                let mut b = good.clone();
                b[i] ^= 1 << bit;
                check(&b, &format!("{kind}: bit {bit} of byte {i}"));
                if i < head || (i + 24 > good.len() && i + 8 < good.len()) {
                    // With the checksum recomputed, the checks behind it are reached (header,
                    // params, the payload's last 16 bytes).
                    let n = b.len() - 8;
                    let sum = xxhash_rust::xxh3::xxh3_64(&b[..n]);
                    b[n..].copy_from_slice(&sum.to_le_bytes());
                    check(&b, &format!("{kind}: bit {bit} of byte {i}, resealed"));
                }
            }
            check(&good[..i], &format!("{kind}: truncated to {i}"));
        }
        let mut longer = good.clone();
        longer.push(0);
        check(&longer, &format!("{kind}: a trailing byte"));
        std::fs::write(&path, &good).unwrap();
        let e = AnyFilter::load(&path, &LoadOptions::new().hash(HashId::Murmur3)).unwrap_err();
        assert!(matches!(e, Error::Mismatch { what: "hash", .. }), "{e}");
    }
}

#[test]
fn query_exit_status_is_0_1_2() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_bloomlab"))
            .args(args)
            .current_dir(fixtures())
            .stdin(Stdio::null())
            .output()
            .expect("binary runs")
    };
    let o = run(&["query", "f.bloom", "key-1", "zzz"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "maybe-present\tkey-1\nabsent\tzzz\n"
    );
    let o = run(&["query", "f.bloom", "zzz"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "absent\tzzz\n");
    let o = run(&["query", "keyed.bloom", "a", "--key-file", "k.hex"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

// ---------------------------------------------------------------------------------------------
// Library
// ---------------------------------------------------------------------------------------------

fn param_of<T: std::fmt::Debug>(r: Result<T, Error>) -> Param {
    match r {
        Err(Error::InvalidParameter { param, .. }) => param,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn with_rate_n_zero() {
    assert_eq!(param_of(StandardBloom::with_rate(0, 0.01)), Param::N);
}

#[test]
fn with_rate_p_outside_0_1() {
    for p in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(param_of(StandardBloom::with_rate(100, p)), Param::P, "{p}");
    }
}

#[test]
fn with_rate_m_overflows_64_bits() {
    let e = StandardBloom::with_rate(u64::MAX, 1e-300).unwrap_err();
    assert!(
        e.to_string()
            .contains("small enough that m fits in 64 bits"),
        "{e}"
    );
}

#[test]
fn with_rate_absurd_n_is_an_allocation_error() {
    // 1.7e18 bits: fits in u64, not in memory.
    assert!(matches!(
        StandardBloom::with_rate(u64::MAX / 100, 0.01),
        Err(Error::Allocation { .. })
    ));
}

#[test]
fn with_bits_m_zero() {
    assert_eq!(param_of(StandardBloom::with_bits(0, 3)), Param::M);
}

#[test]
fn with_bits_k_out_of_range() {
    assert_eq!(param_of(StandardBloom::with_bits(100, 0)), Param::K);
    assert_eq!(param_of(StandardBloom::with_bits(100, 65)), Param::K);
}

#[test]
fn with_bits_absurd_m_is_an_allocation_error() {
    for m in [u64::MAX, 1 << 62] {
        assert!(matches!(
            StandardBloom::with_bits(m, 3),
            Err(Error::Allocation { .. })
        ));
    }
}

#[test]
fn guava_strategy_absurd_m_is_an_allocation_error() {
    // Rounding u64::MAX up to whole words overflowed (found by fuzzing the loader).
    for s in [StrategyId::Guava32, StrategyId::Guava64] {
        assert!(matches!(
            StandardBloom::with_bits_and(
                u64::MAX,
                3,
                bloomlab::hash::Murmur3::default(),
                AnyStrategy(s)
            ),
            Err(Error::Allocation { .. })
        ));
    }
}

#[test]
fn with_rate_and_checks_like_with_rate() {
    let h = AnyHasher::new(HashId::Murmur3, 0);
    let s = AnyStrategy(StrategyId::Guava64);
    assert_eq!(
        param_of(StandardBloom::with_rate_and(0, 0.01, h, s)),
        Param::N
    );
    assert_eq!(
        param_of(StandardBloom::with_bits_and(10, 99, h, s)),
        Param::K
    );
}

#[test]
fn keyed_checks_like_with_rate() {
    assert_eq!(param_of(StandardBloom::keyed(0, 0.01, [1; 16])), Param::N);
    assert_eq!(param_of(StandardBloom::keyed(10, 2.0, [1; 16])), Param::P);
}

#[test]
fn from_bits_k_out_of_range() {
    let b = BitVec::new(64).unwrap();
    assert_eq!(
        param_of(StandardBloom::from_bits(
            b,
            0,
            0,
            Xxh3::default(),
            bloomlab::hash::DoubleHashing
        )),
        Param::K
    );
}

#[test]
fn concurrent_constructors_check_like_standard() {
    assert_eq!(param_of(ConcurrentBloom::with_rate(0, 0.01)), Param::N);
    assert_eq!(param_of(ConcurrentBloom::with_rate(10, 0.0)), Param::P);
    let (h, s) = (Xxh3::default(), bloomlab::hash::EnhancedDoubleHashing);
    assert_eq!(
        param_of(ConcurrentBloom::with_bits_and(0, 3, h, s)),
        Param::M
    );
    assert!(matches!(
        ConcurrentBloom::with_bits_and(u64::MAX, 3, h, s),
        Err(Error::Allocation { .. })
    ));
}

#[test]
fn filter_spec_bad_values() {
    let d = FilterSpec::default();
    let cases = [
        (FilterSpec { n: 0, ..d.clone() }, Param::N),
        (
            FilterSpec {
                p: Some(0.0),
                ..d.clone()
            },
            Param::P,
        ),
        (
            FilterSpec {
                p: None,
                m: None,
                ..d.clone()
            },
            Param::P,
        ),
        (
            FilterSpec {
                m: Some(0),
                ..d.clone()
            },
            Param::M,
        ),
        (
            FilterSpec {
                k: Some(65),
                ..d.clone()
            },
            Param::K,
        ),
    ];
    for (spec, param) in cases {
        assert_eq!(param_of(spec.build()), param, "{spec:?}");
    }
    let absurd = FilterSpec {
        m: Some(u64::MAX),
        ..d.clone()
    };
    assert!(matches!(absurd.build(), Err(Error::Allocation { .. })));
}

#[test]
fn filter_spec_unknown_field_in_toml() {
    let e = toml::from_str::<FilterSpec>("kind = \"standard\"\nbogus = 1\n").unwrap_err();
    assert!(e.to_string().contains("unknown field `bogus`"), "{e}");
    let e = toml::from_str::<FilterSpec>("hash = \"md5\"\n").unwrap_err();
    assert!(e.to_string().contains("unknown variant `md5`"), "{e}");
}

fn good_file() -> Vec<u8> {
    let mut f = StandardBloom::with_rate(500, 0.01).unwrap();
    f.insert_new(b"x");
    persist::to_bytes(&f, &SaveOptions::default()).unwrap()
}

fn reseal(mut b: Vec<u8>) -> Vec<u8> {
    let n = b.len() - 8;
    let s = xxhash_rust::xxh3::xxh3_64(&b[..n]);
    b[n..].copy_from_slice(&s.to_le_bytes());
    b
}

fn load(b: &[u8]) -> Result<StandardBloom, Error> {
    persist::from_bytes(b, &LoadOptions::new())
}

fn corrupt_with(b: &[u8], frag: &str) {
    match load(b) {
        Err(Error::Corrupt(m)) => assert!(m.contains(frag), "'{frag}' not in '{m}'"),
        other => panic!("expected Corrupt('{frag}'), got {other:?}"),
    }
}

#[test]
fn load_missing_file() {
    // A path the caller gave that does not exist: `Path` (bad input, exit 2), not `Io`.
    let e = AnyFilter::load("/nonexistent/f.bloom", &LoadOptions::new()).unwrap_err();
    assert!(matches!(e, Error::Path { .. }), "{e}");
    assert_eq!(e.class(), bloomlab::ErrorClass::Input);
}

#[test]
fn load_wrong_magic() {
    corrupt_with(
        b"PK\x03\x04 something else entirely",
        "not a bloomlab filter file",
    );
}

#[test]
fn load_truncated() {
    let b = good_file();
    corrupt_with(&b[..30], "truncated");
    corrupt_with(&b[..b.len() - 1], "truncated");
}

#[test]
fn load_trailing_bytes() {
    let mut b = good_file();
    b.push(0);
    corrupt_with(&b, "trailing bytes");
}

#[test]
fn load_newer_version() {
    let mut b = good_file();
    b[8] = 9;
    assert_eq!(
        load(&b).unwrap_err(),
        Error::UnsupportedVersion {
            found: 9,
            supported: 1
        }
    );
}

#[test]
fn load_version_zero() {
    let mut b = good_file();
    b[8] = 0;
    corrupt_with(&b, "version 0 does not exist");
}

#[test]
fn load_checksum_mismatch() {
    let mut b = good_file();
    b[60] ^= 0x10;
    corrupt_with(&b, "checksum mismatch");
}

#[test]
fn load_unknown_ids() {
    for (at, frag) in [
        (10, "unknown filter kind code"),
        (11, "unknown hash id code"),
        (12, "unknown strategy id code"),
        (13, "unknown key mode"),
    ] {
        let mut b = good_file();
        b[at] = 0xEE;
        corrupt_with(&reseal(b), frag);
    }
}

#[test]
fn load_reserved_bytes_set() {
    let mut b = good_file();
    b[14] = 1;
    corrupt_with(&reseal(b), "reserved header bytes");
}

#[test]
fn load_params_too_long() {
    let mut b = good_file();
    b[40..44].copy_from_slice(&5000u32.to_le_bytes());
    corrupt_with(&b, "params length 5000 exceeds");
}

#[test]
fn load_k_out_of_range() {
    let mut b = good_file();
    b[60..64].copy_from_slice(&0u32.to_le_bytes());
    corrupt_with(&reseal(b), "k = 0, outside 1..=64");
}

#[test]
fn load_m_zero() {
    let mut b = good_file();
    b[52..60].copy_from_slice(&0u64.to_le_bytes());
    corrupt_with(&reseal(b), "m = 0 bits");
}

#[test]
fn load_payload_length_disagrees_with_m() {
    let mut b = good_file();
    b[52..60].copy_from_slice(&100_000u64.to_le_bytes());
    corrupt_with(&reseal(b), "payload is");
}

#[test]
fn load_bits_past_m() {
    let b = good_file();
    let mut b2 = b.clone();
    let last = b2.len() - 9;
    b2[last] = 0xFF;
    corrupt_with(&reseal(b2), "bits set past m");
}

#[test]
fn load_guava_strategy_needs_whole_words() {
    let f = StandardBloom::with_rate_and(
        100,
        0.01,
        bloomlab::hash::Murmur3::default(),
        AnyStrategy(StrategyId::Guava64),
    )
    .unwrap();
    let mut b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
    let m = u64::from_le_bytes(b[52..60].try_into().unwrap());
    b[52..60].copy_from_slice(&(m - 1).to_le_bytes());
    let e = AnyFilter::from_bytes(&reseal(b), &LoadOptions::new()).unwrap_err();
    assert!(e.to_string().contains("needs a multiple of 64"), "{e}");
}

#[test]
fn load_hash_mismatch() {
    let e =
        AnyFilter::from_bytes(&good_file(), &LoadOptions::new().hash(HashId::Sip24)).unwrap_err();
    assert!(matches!(e, Error::Mismatch { what: "hash", .. }), "{e}");
}

#[test]
fn load_strategy_mismatch() {
    let e = AnyFilter::from_bytes(
        &good_file(),
        &LoadOptions::new().strategy(StrategyId::Guava32),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Mismatch {
                what: "strategy",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn load_kind_mismatch() {
    let e = AnyFilter::from_bytes(&good_file(), &LoadOptions::new().kind(FilterKind::Counting))
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Mismatch {
                what: "filter kind",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn load_key_required_and_wrong_key() {
    let f = StandardBloom::keyed(100, 0.01, [3; 16]).unwrap();
    let b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
    let e = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap_err();
    assert!(matches!(e, Error::KeyRequired { .. }), "{e}");
    let e = AnyFilter::from_bytes(&b, &LoadOptions::new().key([4; 16])).unwrap_err();
    assert!(matches!(e, Error::WrongKey { .. }), "{e}");
}

#[test]
fn load_seed_wider_than_the_hash() {
    let f = StandardBloom::with_rate_and(
        100,
        0.01,
        bloomlab::hash::Murmur3::with_seed(1),
        bloomlab::hash::Guava64,
    )
    .unwrap();
    let mut b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
    b[24] = 1; // k1 != 0
    let km = [
        u64::from_le_bytes(b[16..24].try_into().unwrap()),
        u64::from_le_bytes(b[24..32].try_into().unwrap()),
    ];
    b[32..40].copy_from_slice(&persist::key_fingerprint(km).to_le_bytes());
    let e = AnyFilter::from_bytes(&reseal(b), &LoadOptions::new()).unwrap_err();
    assert!(e.to_string().contains("64-bit seed"), "{e}");
}
