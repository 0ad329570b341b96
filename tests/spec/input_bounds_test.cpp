// Bounded input (issue 9): the loader refuses what is not a regular file of limited size before
// reading it, refuses strings that are not UTF-8 with the key that carries them, and --unset
// removes keys the file set.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "resolve/resolve.h"
#include "spec/load.h"
#include "spec/scenario_file.h"

namespace fabricsim::scenario {
namespace input_bounds_test {

namespace fs = std::filesystem;

// The one-line error of loading `yaml` (with overrides), or "" when it loads.
std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {},
                     const std::vector<std::string>& unsets = {}) {
  try {
    load_scenario_string(yaml, "s.yaml", sets, unsets);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

std::string file_error_of(const std::string& path) {
  try {
    read_scenario_file(path);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

// A scratch directory for this test, removed afterwards.
class Scratch {
 public:
  Scratch() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("fabricsim_input_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

// yaml-cpp 0.7 refuses flow collections nested past its depth limit (measured: 1000 levels do
// it, 300 do not) with only "bad file"; the loader says what that means, in one line, and the
// parser's recursion never overflows the stack (100k levels).
TEST(YamlDepth, DeepNestingIsOneLineNamingTheCause) {
  for (const int levels : {1000, 100000}) {
    const std::string yaml =
        "name: " + std::string(levels, '[') + std::string(levels, ']') + "\n";
    EXPECT_EQ(error_of(yaml),
              "s.yaml:1: (yaml): nested too deeply (yaml-cpp: bad file); a scenario needs a few "
              "levels")
        << levels << " levels";
  }
}

TEST(ReadScenarioFile, RefusesWhatIsNotARegularFile) {
  EXPECT_EQ(file_error_of("/dev/zero"),
            "/dev/zero: (file): cannot read: is a character device, not a regular file")
      << "an endless device is refused before a byte is read";
  Scratch s;
  const std::string link = s.path("x.yaml");
  fs::create_symlink("/dev/urandom", link);
  EXPECT_EQ(file_error_of(link),
            link +
                ": (file): cannot read: is a symbolic link to a character device, not a "
                "regular file")
      << "a symlink is judged by what it points to";
  EXPECT_EQ(file_error_of(s.path("")), s.path("") + ": (file): cannot read: is a directory");
  const std::string fifo = s.path("pipe.yaml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO without a writer would block forever; the check comes first.
  EXPECT_EQ(file_error_of(fifo), fifo + ": (file): cannot read: is a FIFO, not a regular file");
}

TEST(ReadScenarioFile, RefusesAFileOverTheLimit) {
  Scratch s;
  const std::string big = s.path("big.yaml");
  std::ofstream(big) << "name: x\n";
  // A sparse file: the size is what counts, and the check comes before any read.
  fs::resize_file(big, static_cast<uintmax_t>(kMaxScenarioFileBytes) + 1);
  EXPECT_EQ(file_error_of(big),
            big + ": (file): is 64.00 MiB; a scenario file may be at most 64MiB")
      << "one byte over the limit";
  fs::resize_file(big, static_cast<uintmax_t>(kMaxScenarioFileBytes));
  EXPECT_EQ(read_scenario_file(big).size(), static_cast<size_t>(kMaxScenarioFileBytes))
      << "exactly the limit is read whole";
}

TEST(ReadScenarioFile, ReadsAFileWhoseSizeIsNotKnownInAdvance) {
  // /proc files report size 0 and have content: the reader grows its buffer as it reads.
  const std::string text = read_scenario_file("/proc/self/status");
  EXPECT_NE(text.find("Name:"), std::string::npos) << "the whole file was read";
}

TEST(Utf8, ValidatorFollowsRfc3629) {
  EXPECT_EQ(invalid_utf8_offset("plain ascii"), std::string_view::npos);
  EXPECT_EQ(invalid_utf8_offset("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            std::string_view::npos)
      << "2-, 3- and 4-byte sequences (é, €, an emoji)";
  EXPECT_EQ(invalid_utf8_offset("ab\xFF"), 2u) << "0xFF never appears in UTF-8";
  EXPECT_EQ(invalid_utf8_offset("\xC0\xAF"), 0u) << "overlong '/'";
  EXPECT_EQ(invalid_utf8_offset("\xE0\x80\xAF"), 0u) << "overlong 3-byte form";
  EXPECT_EQ(invalid_utf8_offset("\xED\xA0\x80"), 0u) << "UTF-16 surrogate U+D800";
  EXPECT_EQ(invalid_utf8_offset("\xF4\x90\x80\x80"), 0u) << "U+110000, past Unicode";
  EXPECT_EQ(invalid_utf8_offset("x\xE2\x82"), 1u) << "truncated sequence at the end";
  EXPECT_EQ(invalid_utf8_offset("\x80"), 0u) << "a lone continuation byte";
}

TEST(Utf8, EveryStringTheScenarioCarriesIsChecked) {
  const std::string bad = "\xFF";
  EXPECT_EQ(error_of("name: \"a" + bad + "\"\n"),
            "s.yaml:1: name: invalid UTF-8 (byte 0xFF at offset 1); scenario text must be UTF-8")
      << "issue 9 item 5: a name that nlohmann::json would refuse after the run";
  EXPECT_EQ(error_of("outputs: {dir: \"out" + bad + "\"}\n"),
            "s.yaml:1: outputs.dir: invalid UTF-8 (byte 0xFF at offset 3); scenario text must be "
            "UTF-8");
  EXPECT_EQ(error_of("routing: {ecmp: {hash: \"crc" + bad + "\"}}\n"),
            "s.yaml:1: routing.ecmp.hash: invalid UTF-8 (byte 0xFF at offset 3); scenario text "
            "must be UTF-8")
      << "an enum value is checked before it is echoed in 'must be one of'";
  EXPECT_EQ(error_of("fabric:\n  \"li" + bad + "nk\": {rate: 1Gbps}\n"),
            "s.yaml:2: fabric: a key has invalid UTF-8 (byte 0xFF at offset 2); scenario text "
            "must be UTF-8");
  EXPECT_EQ(error_of("workload:\n  kind: pattern\n  pattern: flows\n  flows:\n"
                     "    - [0, 1, \"1MB" +
                     bad + "\", 0us]\n"),
            "s.yaml:5: workload.flows[0]: invalid UTF-8 (byte 0xFF at offset 3); scenario text "
            "must be UTF-8");
  EXPECT_EQ(error_of("name: x\n", {"name=a" + bad}),
            "--set:1: (set): invalid UTF-8 (byte 0xFF at offset 6); scenario text must be UTF-8");
  EXPECT_EQ(error_of("name: x\n", {}, {"na" + bad + "me"}),
            "--unset:1: (unset): invalid UTF-8 (byte 0xFF at offset 2); scenario text must be "
            "UTF-8");
  EXPECT_EQ(error_of("name: \"r\xC3\xA9seau\"\n"), "") << "valid UTF-8 passes";
}

TEST(YamlParser, MalformedInputThatMadeLoadAllLoopForever) {
  // yaml-cpp 0.7's LoadAll allocated without end on these (jbeder/yaml-cpp#1040): found by
  // mutating examples/vl-qos.yaml, 19 GB in 20 s. They are now one line each, at once.
  for (const char* yaml : {"[0], [1],\n", ",", "          [0, 4, 4KiB, 5us, 1], [1],\nname: x\n"}) {
    EXPECT_EQ(error_of(yaml),
              "s.yaml:1: (yaml): a scenario file holds one YAML document, found more than one")
        << yaml;
  }
  EXPECT_EQ(error_of("name: a\n---\nname: b\n"),
            "s.yaml:2: (yaml): a scenario file holds one YAML document, found more than one");
  EXPECT_EQ(error_of("{name: a}\n{name: b}\n"),
            "s.yaml:2: (yaml): a scenario file holds one YAML document, found more than one")
      << "a flow mapping is followed by a second document without a marker";
  EXPECT_EQ(error_of("name: a\n...\n"), "") << "a document end marker alone is one document";
}

constexpr const char* kDcqcn =
    "name: ab\nfabric:\n  link: {rate: 100Gbps}\n  roce: {cc: dcqcn, dcqcn_profile: hpcc-paper}\n";

TEST(Unset, RemovesAKeyForAnAbRun) {
  // Issue 9 item 9: DCQCN off needs the profile gone too.
  EXPECT_NE(error_of(kDcqcn, {"fabric.roce.cc=none"}).find("only valid with cc: dcqcn"),
            std::string::npos)
      << "--set alone cannot turn DCQCN off";
  const LoadedScenario off = load_scenario_string(kDcqcn, "s.yaml", {"fabric.roce.cc=none"},
                                                  {"fabric.roce.dcqcn_profile"});
  EXPECT_EQ(off.scenario.roce.cc, transport::CongestionControl::kNone);
  EXPECT_EQ(off.scenario.roce.dcqcn_profile, Scenario{}.roce.dcqcn_profile)
      << "the unset key takes its default";
  EXPECT_EQ(off.scenario.link.rate_bps, 100'000'000'000) << "other keys of the file stay";
  EXPECT_EQ(off.locations.count("fabric.roce.dcqcn_profile"), 0u) << "no longer written";
}

TEST(Unset, RemovesAGroupAndAppliesBeforeEverySet) {
  const LoadedScenario s = load_scenario_string(kDcqcn, "s.yaml", {"fabric.roce.mtu=1024B"},
                                                {"fabric.roce", "fabric.link.rate"});
  EXPECT_EQ(s.scenario.roce.cc, transport::CongestionControl::kNone) << "the group is gone";
  EXPECT_EQ(s.scenario.roce.mtu_bytes, 1024) << "--set applies after --unset of its group";
  EXPECT_EQ(s.scenario.link.rate_bps, Scenario{}.link.rate_bps);
}

TEST(Unset, UnknownKeysAreErrorsAndUnwrittenKeysHarmless) {
  EXPECT_EQ(error_of(kDcqcn, {}, {"fabric.ib.mtu", "stop_time", "fabric.roce.plb"}), "")
      << "known keys the file does not set";
  EXPECT_EQ(error_of(kDcqcn, {}, {"name", "fabric.roce.dcqcn_profil"}),
            "--unset:2: fabric.roce.dcqcn_profil: unknown key 'dcqcn_profil'; did you mean "
            "'dcqcn_profile'? allowed: mtu, "
            "ack_timeout_exponent, retry_count, vlan, data_priority, cnp_priority, cc, cc_scheme, "
            "dcqcn_profile, plb, hpcc, dcqcn, timely, swift, dctcp, spray, spray_paths, out_of_order, reorder_buffer, qps_per_pair");
  EXPECT_EQ(error_of(kDcqcn, {}, {"name.first"}),
            "--unset:1: name.first: unknown key 'first'; name has no sub-keys");
  EXPECT_EQ(error_of(kDcqcn, {}, {"fabric.roce.cc=none"}),
            "--unset:1: (unset): expected a key path like fabric.roce.dcqcn_profile, got "
            "'fabric.roce.cc=none'");
  EXPECT_EQ(error_of("fabric: 5\n", {}, {"fabric.link.rate"}),
            "s.yaml:1: fabric: expected a mapping with keys: technology, link, switch, trim, nic, "
            "roce, pfc, ecn, ib, transport, uet, tcp, planes, sharp, got '5'")
      << "a group the file got wrong is still the file's error";
}

// fabric.roce.timely.*: meaningful only with cc: timely; a value out of its key's range, or one
// that breaks a rule between keys (T_high above T_low, checked when the scenario resolves), is
// refused with the key it came from.
TEST(TimelyKeys, OnlyWithTimelyAndErrorsNameTheKey) {
  const std::string timely =
      "name: t\nfabric:\n  link: {rate: 100Gbps}\n  roce: {cc: timely}\n";
  EXPECT_NE(error_of(kDcqcn, {"fabric.roce.timely.beta=0.5"}).find("only valid with cc: timely"),
            std::string::npos);
  EXPECT_EQ(error_of(timely, {"fabric.roce.timely.beta=0.5", "fabric.roce.timely.t_low=2us"}),
            "");
  EXPECT_NE(error_of(timely, {"fabric.roce.timely.beta=2"}).find("fabric.roce.timely.beta"),
            std::string::npos);
  const LoadedScenario s =
      load_scenario_string(timely, "s.yaml", {"fabric.roce.timely.t_high=4us"}, {});
  try {
    resolve(s.scenario);
    FAIL() << "T_high 4 us below the default T_low (5 us at 100 Gb/s) accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.timely.t_high");
  }
  const Resolved r = resolve(
      load_scenario_string(timely, "s.yaml", {"fabric.roce.timely.min_rtt=3us"}, {}).scenario);
  EXPECT_EQ(r.sc.roce.timely_params.min_rtt_ps, 3 * kPsPerUs) << "the override applies";
  EXPECT_EQ(r.sc.roce.timely_params.t_low_ps, 5 * kPsPerUs) << "the others keep the default";
}

TEST(FlowList, IndicesAndValuesOutsideTheRanges) {
  const std::string head = "workload:\n  kind: pattern\n  pattern: flows\n  flows:\n";
  EXPECT_EQ(error_of(head + "    - [0, 4294967297, 1MB, 0us]\n"),
            "s.yaml:5: workload.flows[0]: src and dst must be NIC indices below 2^30 "
            "(hosts.count x hosts.nics_per_host is at most that)")
      << "would have wrapped to NIC 1 in an int";
  EXPECT_EQ(error_of(head + "    - [0, 1, 2048GiB, 0us]\n"),
            "s.yaml:5: workload.flows[0]: size must be <= 1024GiB");
  EXPECT_EQ(error_of(head + "    - [0, 1, 1MB, 1000001s]\n"),
            "s.yaml:5: workload.flows[0]: start must be <= 1000000s, the simulated-time horizon");
}

}  // namespace input_bounds_test
}  // namespace fabricsim::scenario
