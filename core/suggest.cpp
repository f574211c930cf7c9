#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace mb {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// optimal string alignment distance: the Levenshtein operations and a swap of two adjacent letters
size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

}  // namespace

std::string case_insensitive_match(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string w = lower(word);
  std::string found;
  int count = 0;
  for (const auto& c : candidates)
    if (lower(c) == w) {
      found = c;
      ++count;
    }
  return count == 1 ? found : std::string();
}

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  if (std::string c = case_insensitive_match(word, candidates); !c.empty()) return c;
  const std::string w = lower(word);
  const size_t limit = std::max<size_t>(1, w.size() / 3);
  size_t best = limit + 1;
  std::string found;
  bool tie = false;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(w, lower(c));
    if (d < best) {
      best = d;
      found = c;
      tie = false;
    } else if (d == best) {
      tie = true;
    }
  }
  return best <= limit && !tie ? found : std::string();
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string c = closest_name(word, candidates);
  return c.empty() ? std::string() : "; did you mean '" + c + "'?";
}

}  // namespace mb
