// A scheme's parameter out of range: which one, as its key below "fabric." (e.g.
// "roce.timely.beta"), so that resolve reports it as InputError("fabric." + field). Every
// congestion-control scheme's validate_*_params throws it; their own names are aliases.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace fabricsim::transport {

struct ParamError : std::invalid_argument {
  ParamError(std::string field_name, const std::string& what)
      : std::invalid_argument(what), field(std::move(field_name)) {}
  std::string field;  // the key below "fabric."
};

}  // namespace fabricsim::transport
