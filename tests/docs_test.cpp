// The generated docs are not stale: docs/methods.md and docs/models.md are exactly what
// `mbbench list methods --markdown` and `mbbench list models --markdown` print (regenerate them
// with scripts/gen-docs.sh).
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "cli_util.hpp"

namespace {
std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
const std::string kDocs = std::string(MBBENCH_TEST_DATA) + "/../../docs/";
}  // namespace

TEST_CASE("docs: methods.md and models.md are generated from the registry and the catalog", "[docs]") {
  for (const char* what : {"methods", "models"}) {
    INFO("docs/" << what << ".md is stale: run scripts/gen-docs.sh");
    const auto r = mbtest::run_cli(std::string("list ") + what + " --markdown");
    REQUIRE(r.code == 0);
    CHECK(read(kDocs + what + ".md") == r.output);
  }
}
