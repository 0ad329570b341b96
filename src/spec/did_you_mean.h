// "did you mean 'layers'?" for a misspelt key or enum value: the closest allowed name by edit
// distance, offered only when it is close enough to be the likely intent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::scenario {

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
// adjacent characters each cost 1 ("layres" -> "layers" is 1). Swaps count once because a
// transposed pair is the commonest typing slip. Bytes, not code points: keys and enum values are
// ASCII, and a non-ASCII typo only ever makes the distance larger.
int edit_distance(std::string_view a, std::string_view b);

// The name in `allowed` nearest to `typed`, or "" when none is within max(1, |typed| / 3) edits
// (a third of the word: close enough that the suggestion is likely what was meant, far enough
// that a short unrelated word such as "colour" gets no suggestion among rate/cable). Ties go to
// the earlier name, so the answer follows the registry's order, not the hash of a container.
std::string closest_name(std::string_view typed, const std::vector<std::string>& allowed);

// "did you mean 'rate'? " (with the trailing space, to sit before "allowed: ..."), or "".
std::string did_you_mean_prefix(std::string_view typed, const std::vector<std::string>& allowed);
// "; did you mean 'crc32'?" (to end a "must be one of: ..." message), or "".
std::string did_you_mean_suffix(std::string_view typed, const std::vector<std::string>& allowed);

}  // namespace fabricsim::scenario
