// A record struct's fields, declared once. Each struct lists its fields in a static visitor
//   template <class V> static void fields(V&& v) { v(field("spec", &ModelRef::spec)); ... }
// and everything that walks a struct field by field (JSON reading and writing in
// records/record_io.cpp, merging, the driver's accumulation, the benchmark counters) walks that
// list. Adding a field is adding its member and its line. (C++17: methods/peers/simbody.cpp
// includes this through methods/method.hpp.)
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace mb {

// When a field is in a record file.
enum class Presence {
  Required,  // always written; a reader requires it
  Optional,  // always written; a reader takes it when present (files written before it lack it)
  IfSet,     // written when nonzero or non-empty (or, with `with`, when that field is); read when present
};

template <class S, class T>
struct Field {
  const char* key;  // the JSON key; "a.b" is key b of the nested object a
  T S::*member;
  Presence presence = Presence::Required;
  // IfSet: written when the field of this key is set, and then required with it
  const char* with = nullptr;
};
template <class S, class T>
constexpr Field<S, T> field(const char* key, T S::*member, Presence presence = Presence::Required, const char* with = nullptr) {
  return {key, member, presence, with};
}

// Whether S is a struct with a field list.
struct AnyField {
  template <class F>
  void operator()(const F&) const {}
};
template <class S, class = void>
struct is_described : std::false_type {};
template <class S>
struct is_described<S, std::void_t<decltype(S::fields(AnyField{}))>> : std::true_type {};
template <class S>
inline constexpr bool is_described_v = is_described<S>::value;

template <class T, class = void>
struct has_empty : std::false_type {};
template <class T>
struct has_empty<T, std::void_t<decltype(std::declval<const T&>().empty())>> : std::true_type {};

// Whether a value counts as set for Presence::IfSet.
template <class T>
bool is_set(const T& x) {
  if constexpr (std::is_arithmetic_v<T>) return x != T{};
  else if constexpr (has_empty<T>::value) return !x.empty();
  else return true;  // a nested struct
}
template <class T>
bool is_set(const std::optional<T>& x) { return x.has_value(); }

// Whether the field `key` of `s` is set (false for a key not in the list).
template <class S>
bool key_is_set(const S& s, std::string_view key) {
  bool set = false;
  S::fields([&](const auto& f) {
    if (key == f.key) set = is_set(s.*f.member);
  });
  return set;
}

// Whether field f of s goes into a file.
template <class S, class F>
bool is_written(const S& s, const F& f) {
  if (f.presence != Presence::IfSet) return true;
  return f.with ? key_is_set(s, f.with) : is_set(s.*f.member);
}

}  // namespace mb
