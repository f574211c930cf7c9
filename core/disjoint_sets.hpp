// Union-find with path halving over the elements 0..n-1: the connected components of a graph given
// edge by edge (the joint graph's cycles, a machine's spanning forests, a contact problem's islands).
#pragma once
#include <numeric>
#include <vector>

namespace mb {

struct DisjointSets {
  std::vector<int> up;
  explicit DisjointSets(int n) : up(static_cast<size_t>(n)) { std::iota(up.begin(), up.end(), 0); }
  int find(int v) {
    while (up[static_cast<size_t>(v)] != v) v = up[static_cast<size_t>(v)] = up[static_cast<size_t>(up[static_cast<size_t>(v)])];
    return v;
  }
  // false if u and v were already connected
  bool unite(int u, int v) {
    u = find(u);
    v = find(v);
    if (u == v) return false;
    up[static_cast<size_t>(u)] = v;
    return true;
  }
};

}  // namespace mb
