// Congestion-control rules registered by name, one registry per transport interface
// (rate_cc.h, tcp_window_cc.h, uet_window_cc.h): a name is new, not a built-in's, and has a
// factory; lookups by name; the names sorted, for the error that lists them.
#pragma once

#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabricsim::transport {

template <class Factory>
class SchemeRegistry {
 public:
  // `what` names a rule in errors ("congestion-control scheme"); `builtins` are reserved.
  SchemeRegistry(std::string what, std::initializer_list<std::string_view> builtins)
      : what_(std::move(what)), builtins_(builtins.begin(), builtins.end()) {}

  // Throws std::invalid_argument if the name is empty, a built-in's or taken, or the factory
  // is empty.
  void add(std::string name, Factory factory) {
    if (name.empty()) throw std::invalid_argument("a " + what_ + " needs a name");
    for (std::string_view b : builtins_) {
      if (name == b) throw std::invalid_argument("'" + name + "' is a built-in " + what_);
    }
    if (!factory) throw std::invalid_argument(what_ + " '" + name + "' has no factory");
    if (!by_name_.emplace(name, std::move(factory)).second) {
      throw std::invalid_argument(what_ + " '" + name + "' is registered twice");
    }
  }
  const Factory* find(std::string_view name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : by_name_) out.push_back(entry.first);
    return out;  // std::map keeps them sorted
  }

 private:
  std::string what_;
  std::vector<std::string_view> builtins_;  // string literals: they outlive the registry
  std::map<std::string, Factory, std::less<>> by_name_;
};

}  // namespace fabricsim::transport
