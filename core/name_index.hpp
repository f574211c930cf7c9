// An index of the names of a sequence (the bodies or joints of a model) by their position, without
// a copy of the names: an open-addressing table of 64-bit slots, each a name's 32-bit hash and its
// position + 1 (0: an empty slot). A lookup compares the name it finds by position through the
// caller's `name_of(pos)`, so the table holds 8 bytes a slot, at most half the slots used, and
// makes no allocation per name (a million names: 16 MiB and one allocation).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace mb {

class NameIndex {
 public:
  explicit NameIndex(size_t expected = 0) { rehash(capacity_for(expected)); }

  // the position of `name`, -1 if no name of the index equals it
  template <class NameOf>
  long find(std::string_view name, const NameOf& name_of) const {
    const std::uint32_t h = hash(name);
    for (size_t s = h & mask_;; s = (s + 1) & mask_) {
      const std::uint64_t e = slots_[s];
      if (e == 0) return -1;
      if (static_cast<std::uint32_t>(e >> 32) == h && std::string_view(name_of(pos_of(e))) == name) return pos_of(e);
    }
  }
  // adds position `pos` (its name name_of(pos)) unless an equal name is there: then the position
  // of that name, else -1
  template <class NameOf>
  long insert(long pos, const NameOf& name_of) {
    if (2 * (used_ + 1) > slots_.size()) rehash(2 * slots_.size());
    const std::string_view name = name_of(pos);
    const std::uint32_t h = hash(name);
    size_t s = h & mask_;
    for (;; s = (s + 1) & mask_) {
      const std::uint64_t e = slots_[s];
      if (e == 0) break;
      if (static_cast<std::uint32_t>(e >> 32) == h && std::string_view(name_of(pos_of(e))) == name) return pos_of(e);
    }
    slots_[s] = (static_cast<std::uint64_t>(h) << 32) | static_cast<std::uint64_t>(pos + 1);
    ++used_;
    return -1;
  }

 private:
  static std::uint32_t hash(std::string_view s) { return static_cast<std::uint32_t>(std::hash<std::string_view>{}(s)); }
  static long pos_of(std::uint64_t e) { return static_cast<long>(e & 0xffffffffu) - 1; }
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c < 2 * n) c *= 2;
    return c;
  }
  // the slots move by their stored hash: no name is read
  void rehash(size_t capacity) {
    std::vector<std::uint64_t> old(capacity, 0);
    old.swap(slots_);
    mask_ = capacity - 1;
    for (const std::uint64_t e : old) {
      if (e == 0) continue;
      size_t s = (e >> 32) & mask_;
      while (slots_[s] != 0) s = (s + 1) & mask_;
      slots_[s] = e;
    }
  }

  std::vector<std::uint64_t> slots_;
  size_t mask_ = 0, used_ = 0;
};

}  // namespace mb
