// Generates the Guava compatibility vectors used by tests/guava_compat.rs.
// See tests/guava/README.md for the exact command lines. Needs Guava (tested with 31.1) on the
// class path; uses reflection to reach Guava's package-private BloomFilter.create(..., Strategy)
// and bitSize(), which Java 17 allows for classes on the class path (the unnamed module).

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import com.google.common.hash.HashCode;
import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Writer;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public final class GenVectors {
  private static final HashFunction MURMUR = Hashing.murmur3_128();

  // Knuth's MMIX LCG; the Rust test reproduces it with wrapping arithmetic.
  static long lcgNext(long x) {
    return x * 6364136223846793005L + 1442695040888963407L;
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(String.format("%02x", x & 0xff));
    }
    return sb.toString();
  }

  static String jsonString(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.append('"').toString();
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("self-check failed: " + what);
    }
  }

  // ---------------------------------------------------------------- murmur3 vectors

  static void murmurVectors(Path out) throws IOException {
    List<String> strings = new ArrayList<>();
    strings.add("");
    strings.add("hello");
    String ascii = "The quick brown fox jumps over the lazy dog, 0123456789!";
    for (int len = 1; len <= 40; len++) {
      strings.add(ascii.substring(0, len));
    }
    // Non-ASCII: 1..40 code points cycling through 2-, 3- and 4-byte UTF-8 sequences.
    int[] cps = {0xe9, 0x4e2d, 0x1f600, 0xdf, 'a', 0x416, 0x20ac, 0x10348};
    for (int len = 1; len <= 40; len++) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < len; i++) {
        sb.appendCodePoint(cps[i % cps.length]);
      }
      strings.add(sb.toString());
    }
    List<Long> longs = new ArrayList<>();
    long[] fixed = {0L, 1L, -1L, 42L, Long.MIN_VALUE, Long.MAX_VALUE, 0x0123456789abcdefL};
    for (long v : fixed) {
      longs.add(v);
    }
    long x = 12345L;
    for (int i = 0; i < 25; i++) {
      x = lcgNext(x);
      longs.add(x);
    }

    try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      w.write("# murmur3_128 (seed 0) vectors from Guava; hash = hex of HashCode.asBytes()"
          + " (h1 then h2, little-endian)\n");
      w.write("# kind=string: input is the hex of the UTF-8 bytes, hashed with"
          + " putString(s, UTF_8); kind=long: input is a signed decimal, hashed with putLong\n");
      w.write("kind,input,hash\n");
      for (String s : strings) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        HashCode viaFunnel = MURMUR.hashObject(s, Funnels.stringFunnel(StandardCharsets.UTF_8));
        check(viaFunnel.equals(MURMUR.hashBytes(utf8)), "stringFunnel == hashBytes(utf8)");
        check(viaFunnel.equals(MURMUR.hashString(s, StandardCharsets.UTF_8)), "hashString");
        w.write("string," + hex(utf8) + "," + hex(viaFunnel.asBytes()) + "\n");
      }
      for (long v : longs) {
        HashCode h = MURMUR.hashObject(v, Funnels.longFunnel());
        check(h.equals(MURMUR.hashLong(v)), "longFunnel == hashLong");
        w.write("long," + v + "," + hex(h.asBytes()) + "\n");
      }
    }
    System.out.println("murmur3: " + (strings.size() + longs.size()) + " vectors");
  }

  // ---------------------------------------------------------------- Bloom filters

  static final int ABSENT_QUERIES = 1000;
  static final int PRESENT_SAMPLE = 100;

  // Inserted string keys are "key-0" .. "key-(count-1)". Absent string keys alternate between an
  // ASCII and a non-ASCII form so that some queries carry multi-byte UTF-8.
  static String presentString(int i) {
    return "key-" + i;
  }

  static String absentString(int i) {
    return (i % 2 == 0) ? "absent-" + i : "отсутствует-" + i + "-✓";
  }

  static int generated = 0;
  static int totalQueries = 0;

  @SuppressWarnings("unchecked")
  static void filter(
      Path dir,
      Method create,
      Method bitSize,
      Object strategy,
      String strategyName,
      boolean strings,
      long expected,
      double fpp,
      int inserted,
      long seed)
      throws Exception {
    String funnelName = strings ? "string" : "long";
    String name =
        String.format(
            "%s_%s_n%d_p%s_i%d",
            strategyName, funnelName, expected, Double.toString(fpp).replace('.', '_'), inserted);
    Funnel<?> funnel = strings ? Funnels.stringFunnel(StandardCharsets.UTF_8) : Funnels.longFunnel();
    BloomFilter<Object> bf =
        (BloomFilter<Object>) create.invoke(null, funnel, expected, fpp, strategy);

    // Present keys, and absent keys (for longs: the LCG continues past the inserted ones, whose
    // full period of 2^64 guarantees they are distinct from every inserted key).
    List<Object> present = new ArrayList<>();
    List<Object> absent = new ArrayList<>();
    long x = seed;
    for (int i = 0; i < inserted; i++) {
      if (strings) {
        present.add(presentString(i));
      } else {
        x = lcgNext(x);
        present.add(x);
      }
    }
    for (int i = 0; i < ABSENT_QUERIES; i++) {
      if (strings) {
        absent.add(absentString(i));
      } else {
        x = lcgNext(x);
        absent.add(x);
      }
    }
    for (Object k : present) {
      bf.put(k);
    }
    for (Object k : present) {
      check(bf.mightContain(k), "no false negative");
    }

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bf.writeTo(bytes);
    Files.write(dir.resolve(name + ".bin"), bytes.toByteArray());

    // Queries: a sample of present keys, then all absent keys.
    List<Object> queries = new ArrayList<>();
    int stride = Math.max(1, inserted / PRESENT_SAMPLE);
    for (int i = 0; i < inserted && queries.size() < PRESENT_SAMPLE; i += stride) {
      queries.add(present.get(i));
    }
    queries.addAll(absent);
    StringBuilder answers = new StringBuilder();
    int falsePositives = 0;
    for (Object q : queries) {
      boolean m = bf.mightContain(q);
      answers.append(m ? '1' : '0');
    }
    for (Object q : absent) {
      if (bf.mightContain(q)) {
        falsePositives++;
      }
    }
    totalQueries += queries.size();

    // Read back through Guava: the file is a faithful copy.
    BloomFilter<Object> back =
        BloomFilter.readFrom(
            new java.io.ByteArrayInputStream(bytes.toByteArray()), (Funnel<Object>) funnel);
    check(back.equals(bf), "readFrom(writeTo(bf)) equals bf");

    long bits = (Long) bitSize.invoke(bf);
    StringBuilder j = new StringBuilder();
    j.append("{\n");
    j.append("  \"name\": ").append(jsonString(name)).append(",\n");
    j.append("  \"strategy\": ").append(jsonString(strategyName)).append(",\n");
    j.append("  \"strategy_ordinal\": ").append(((Enum<?>) strategy).ordinal()).append(",\n");
    j.append("  \"funnel\": ").append(jsonString(funnelName)).append(",\n");
    j.append("  \"expected_insertions\": ").append(expected).append(",\n");
    j.append("  \"fpp\": ").append(fpp).append(",\n");
    j.append("  \"inserted\": ").append(inserted).append(",\n");
    j.append("  \"lcg_seed\": ").append(strings ? 0 : seed).append(",\n");
    j.append("  \"bit_size\": ").append(bits).append(",\n");
    j.append("  \"bin_bytes\": ").append(bytes.size()).append(",\n");
    j.append("  \"num_hash_functions\": ").append(bytes.toByteArray()[1] & 0xff).append(",\n");
    j.append("  \"approximate_element_count\": ").append(bf.approximateElementCount()).append(",\n");
    j.append("  \"expected_fpp\": ").append(bf.expectedFpp()).append(",\n");
    j.append("  \"absent_false_positives\": ").append(falsePositives).append(",\n");
    j.append("  \"query_keys\": [");
    for (int i = 0; i < queries.size(); i++) {
      if (i > 0) {
        j.append(",");
      }
      j.append(i % 8 == 0 ? "\n    " : " ");
      Object q = queries.get(i);
      j.append(strings ? jsonString((String) q) : q.toString());
    }
    j.append("\n  ],\n");
    j.append("  \"answers\": ").append(jsonString(answers.toString())).append("\n");
    j.append("}\n");
    Files.write(dir.resolve(name + ".json"), j.toString().getBytes(StandardCharsets.UTF_8));
    generated++;
    System.out.printf(
        "%-40s bits=%d k=%d approx=%d fp=%d/%d%n",
        name,
        bits,
        bytes.toByteArray()[1] & 0xff,
        bf.approximateElementCount(),
        falsePositives,
        ABSENT_QUERIES);
  }

  // ---------------------------------------------------------------- literature vectors

  // Keys of Guava's BloomFilterTest known-false-positive tests: the decimal strings of i.
  static String decimal(int i) {
    return Integer.toString(i);
  }

  // What `bloomlab run experiments/literature.toml` compares with (tests/guava/vectors/literature.csv):
  // create's bit size and k for a few (n, p), and the false positives of Guava's own
  // BloomFilterTest (testBasic-style known false positives): create(funnel, 10^6, 0.03, strategy),
  // insert "0", "2", ..., "1999998", count how many of "1", "3", ..., "1999999" the filter
  // reports, and list those below 900.
  static void literatureVectors(Path out, Method create, Method bitSize, Object[] strategies)
      throws Exception {
    StringBuilder w = new StringBuilder();
    w.append("# Guava 31.1 (real Guava, written by tests/guava/GenVectors.java), for experiments/literature.toml\n");
    w.append("# sizing: BloomFilter.create(funnel, n, p, strategy): bitSize() and the number of hash functions\n");
    w.append("# fp: insert the decimal strings 0, 2, ..., 2n-2 and query 1, 3, ..., 2n-1 (BloomFilterTest's known false positives);\n");
    w.append("#     funnel unencoded_chars = Funnels.unencodedCharsFunnel() (UTF-16LE), utf8 = Funnels.stringFunnel(UTF_8)\n");
    w.append("row,strategy,funnel,n,p,bit_size,hashes,queried,false_positives,false_positives_below_900\n");
    String[] names = {"mitz32", "mitz64"};
    double[][] sizing = {{1_000_000, 0.03}, {1_000_000, 0.01}, {10_000_000, 0.01}, {10_000_000, 0.001}};
    for (double[] c : sizing) {
      for (int s = 0; s < 2; s++) {
        @SuppressWarnings("unchecked")
        BloomFilter<CharSequence> bf =
            (BloomFilter<CharSequence>)
                create.invoke(null, Funnels.unencodedCharsFunnel(), (long) c[0], c[1], strategies[s]);
        long bits = (Long) bitSize.invoke(bf);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bf.writeTo(bytes);
        int k = bytes.toByteArray()[1] & 0xff;
        w.append(String.format("sizing,%s,-,%d,%s,%d,%d,0,0,%n", names[s], (long) c[0], Double.toString(c[1]), bits, k));
      }
    }
    Object[][] fp = {{0, "unencoded_chars"}, {1, "unencoded_chars"}, {1, "utf8"}};
    int n = 1_000_000;
    for (Object[] c : fp) {
      int s = (Integer) c[0];
      boolean utf8 = c[1].equals("utf8");
      Funnel<CharSequence> funnel =
          utf8 ? Funnels.stringFunnel(StandardCharsets.UTF_8) : Funnels.unencodedCharsFunnel();
      @SuppressWarnings("unchecked")
      BloomFilter<CharSequence> bf =
          (BloomFilter<CharSequence>) create.invoke(null, funnel, (long) n, 0.03, strategies[s]);
      for (int i = 0; i < 2 * n; i += 2) {
        bf.put(decimal(i));
      }
      for (int i = 0; i < 2 * n; i += 2) {
        check(bf.mightContain(decimal(i)), "no false negative");
      }
      int count = 0;
      StringBuilder below = new StringBuilder();
      for (int i = 1; i < 2 * n; i += 2) {
        if (bf.mightContain(decimal(i))) {
          count++;
          if (i < 900) {
            below.append(below.length() == 0 ? "" : " ").append(i);
          }
        }
      }
      long bits = (Long) bitSize.invoke(bf);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bf.writeTo(bytes);
      int k = bytes.toByteArray()[1] & 0xff;
      w.append(String.format("fp,%s,%s,%d,0.03,%d,%d,%d,%d,%s%n", names[s], c[1], n, bits, k, n, count, below));
      System.out.printf("literature: %s %s false positives %d of %d%n", names[s], c[1], count, n);
    }
    Files.write(out, w.toString().getBytes(StandardCharsets.UTF_8));
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args.length > 0 ? args[0] : "tests/guava/vectors");
    Files.createDirectories(dir);
    murmurVectors(dir.resolve("murmur3.csv"));

    Class<?> strategyIface = Class.forName("com.google.common.hash.BloomFilter$Strategy");
    Method create =
        BloomFilter.class.getDeclaredMethod(
            "create", Funnel.class, long.class, double.class, strategyIface);
    create.setAccessible(true);
    Method bitSize = BloomFilter.class.getDeclaredMethod("bitSize");
    bitSize.setAccessible(true);
    Object[] strategies =
        Class.forName("com.google.common.hash.BloomFilterStrategies").getEnumConstants();
    check(strategies.length == 2, "Guava has two strategies");
    check(((Enum<?>) strategies[0]).name().equals("MURMUR128_MITZ_32"), "ordinal 0");
    check(((Enum<?>) strategies[1]).name().equals("MURMUR128_MITZ_64"), "ordinal 1");
    String[] names = {"mitz32", "mitz64"};

    // (expected insertions, fpp, keys actually inserted). The 1000/0.03/3000 row is overfilled
    // three times so that many absent keys come back as false positives.
    Object[][] configs = {
      {100L, 0.01, 100},
      {100L, 0.03, 100},
      {1000L, 0.01, 1000},
      {1000L, 0.001, 1000},
      {1000L, 0.03, 3000},
      {10000L, 0.03, 10000},
      {10000L, 0.001, 10000},
      {100000L, 0.01, 100000},
    };
    long seed = 1;
    for (int s = 0; s < 2; s++) {
      for (boolean strings : new boolean[] {true, false}) {
        for (Object[] c : configs) {
          filter(
              dir,
              create,
              bitSize,
              strategies[s],
              names[s],
              strings,
              (Long) c[0],
              (Double) c[1],
              (Integer) c[2],
              seed++);
        }
      }
    }
    System.out.println("filters: " + generated + ", queries: " + totalQueries);
    literatureVectors(dir.resolve("literature.csv"), create, bitSize, strategies);
  }
}
