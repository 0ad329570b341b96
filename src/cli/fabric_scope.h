// How `fabricsim compare` turns one scenario file into one scenario per fabric.
//
// A scenario key belongs to both fabrics (topology, hosts, workload, link rate, transport service,
// ...) or to one of them: fabric.ib.*, routing.sm.* and faults.credit_loss.* to InfiniBand, and
// the Ethernet and RoCE mechanisms to RoCE (PFC, ECN, DCQCN, PLB, VLAN and priorities, the RoCE
// MTU and ACK interval, the Ethernet switch latency, the dynamic-threshold buffer, ECMP hashing
// and its convergence; the lists are in fabric_scope.cpp). `fabricsim run` quietly ignores the
// keys of the other technology; compare leaves them out of that fabric's run, never
// reinterprets them, and reports them (SkippedKey) so the command can say so in a note.
// fabric.technology is set per run.
//
// Keys that belong to both fabrics apply to every run; where a fabric cannot model a value (a
// link loss rate on InfiniBand, say) that run is refused with the loader's usual one-line
// error, `FILE:LINE: key.path: message`, located in the original file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spec/load.h"
#include "spec/variants.h"

namespace fabricsim::cli {

// Fabric names as fabric.technology spells them, in the order `--fabrics` documents them.
const std::vector<std::string>& compare_fabrics();

// "" = the key applies to every fabric; else the one fabric it belongs to ("ib", "roce" or
// "uet"). The Ethernet switch keys (PFC, ECN, ECMP, ...) are listed as "roce"'s, and UET, which
// runs on the same switches, reads them too: key_applies() says which run reads a key.
std::string key_fabric(std::string_view key_path);
bool key_applies(std::string_view key_path, std::string_view fabric);
// For a key of one fabric, the key that plays its part on the other ("" when there is none),
// e.g. fabric.switch.latency -> fabric.ib.switch_latency.
std::string_view key_counterpart(std::string_view key_path);

// A key of another fabric that a run left out.
struct SkippedKey {
  std::string key_path;
  scenario::SourceLocation where;  // in the file, or --set:N
  std::string counterpart;         // key_counterpart(), "" when none
};

// The scenario file read and parsed once, with where each key was written.
class ScenarioSource {
 public:
  // Throws scenario::LoadError exactly as scenario::load_scenario would for an unreadable file
  // or malformed YAML.
  explicit ScenarioSource(const std::string& file);

  // The scenario for `fabric`: the file with fabric.technology = `fabric` and the other fabrics'
  // keys left out, then `sets` (overrides of another fabric's keys are left out too). Throws
  // scenario::LoadError located in the original file or at --set:N; an override of
  // fabric.technology is refused (compare sets it). `skipped` receives what was left out, in
  // file order then override order. The result's locations point into the original file.
  // `unsets` (--unset key paths) apply before `sets`, as in scenario::load_scenario; unsetting
  // fabric.technology is refused like setting it.
  // `set_where[i]`, when given, is where sets[i] was written (a variant's override in the file);
  // the others are --set:N.
  scenario::LoadedScenario load_for(const std::string& fabric, const std::vector<std::string>& sets,
                                    std::vector<SkippedKey>& skipped,
                                    const std::vector<std::string>& unsets = {},
                                    const std::vector<scenario::SourceLocation>& set_where = {}) const;

  const std::string& file() const { return file_; }
  // The file's variants: (spec/variants.h), empty when it has none.
  const std::vector<scenario::VariantSpec>& variants() const { return variants_; }

 private:
  struct Written {
    std::string key_path;
    scenario::SourceLocation where;
  };
  std::string file_;
  std::string text_;
  std::vector<Written> leaves_;       // every leaf key of the file, in file order
  scenario::LoadedScenario located_;  // only `file` and `locations` (groups, leaves, list items)
  std::vector<scenario::VariantSpec> variants_;
};

}  // namespace fabricsim::cli
