// Plots: the gnuplot script drawn from result rows, and the PNG when gnuplot is installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "plots.hpp"
#include "process.hpp"

namespace braid::bench {
namespace {

result_row row(const std::string& panel, const std::string& technique, std::optional<std::int64_t> group, double mops) {
  result_row r;
  if (!panel.empty()) r.set("panel", panel);
  r.set("technique", technique).set("mops", mops);
  if (group) r.set("group", *group);
  return r;
}

std::size_t count(const std::string& text, const std::string& word) {
  std::size_t found = 0;
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++found;
  return found;
}

TEST(Plots, SweptFieldAndAxes) {
  EXPECT_EQ(swept_field({row("", "coro", 1, 1), row("", "coro", 8, 2)}), "group");
  EXPECT_EQ(swept_field({row("", "coro", 1, 1), row("", "gp", 1, 2)}), "");
  std::vector<result_row> sizes = {result_row().set("size_bytes", std::int64_t{1} << 20).set("mops", 1.0),
                                   result_row().set("size_bytes", std::int64_t{1} << 30).set("mops", 2.0)};
  const plot_axes resolved = resolve_axes(plot_axes{.x = ""}, sizes);
  EXPECT_EQ(resolved.x, "size_bytes");
  EXPECT_TRUE(resolved.log_x);
}

TEST(Plots, OneLinePerTechniqueOnePanelPerFigurePanel) {
  const std::vector<result_row> rows = {
      row("small", "naive", std::nullopt, 50), row("small", "coro", 1, 20), row("small", "coro", 4, 30),
      row("large", "naive", std::nullopt, 5),  row("large", "coro", 1, 4),  row("large", "coro", 16, 30),
      row("large", "gp", 1, 4),                row("large", "gp", 16, 35)};
  const std::string script = gnuplot_script(rows, plot_axes{.x = "group", .y = "mops"}, "fig1", "out/fig1.png");
  ASSERT_FALSE(script.empty());
  EXPECT_NE(script.find("set multiplot layout 1,2"), std::string::npos);
  EXPECT_NE(script.find("set output 'out/fig1.png'"), std::string::npos);
  EXPECT_EQ(count(script, "<< EOD"), 3u);                  // coro, coro, gp
  EXPECT_EQ(count(script, "with lines dashtype 3"), 2u);   // naive: a horizontal line per panel
  EXPECT_NE(script.find("set title 'small'"), std::string::npos);
  EXPECT_NE(script.find("set title 'large'"), std::string::npos);
  EXPECT_NE(script.find("\n1 4\n16 35\nEOD"), std::string::npos);  // gp's points, ascending x
}

TEST(Plots, ConfigurationsThatVaryNameTheirLinesAndQuotesAreEscaped) {
  std::vector<result_row> rows;
  for (std::int64_t size : {std::int64_t{1} << 20, std::int64_t{1} << 30}) {
    for (std::int64_t group : {1, 8}) {
      rows.push_back(row("", "coro", group, 1.0 * group).set("size_bytes", size));
    }
  }
  const std::string script = gnuplot_script(rows, plot_axes{.x = "group"}, "it's", "a.png");
  EXPECT_NE(script.find("'coro size_bytes=1MiB'"), std::string::npos);
  EXPECT_NE(script.find("'coro size_bytes=1GiB'"), std::string::npos);
  EXPECT_NE(script.find("'it''s'"), std::string::npos);
  EXPECT_EQ(script.find("multiplot"), std::string::npos);
}

TEST(Plots, SecondAxisAndLogScale) {
  std::vector<result_row> rows;
  for (std::int64_t chains : {1, 2, 4}) {
    rows.push_back(result_row().set("technique", "chase").set("chains", chains).set("rate", 0.01 * chains).set("latency", 90.0));
  }
  const std::string script = gnuplot_script(
      rows, plot_axes{.x = "chains", .y = "rate", .y2 = "latency", .log_x = true, .y2_label = "ns"}, "probe", "p.png");
  EXPECT_NE(script.find("axes x1y2"), std::string::npos);
  EXPECT_NE(script.find("set y2label 'ns'"), std::string::npos);
  EXPECT_NE(script.find("set logscale x 2"), std::string::npos);
}

TEST(Plots, NothingToDrawGivesNoScript) {
  EXPECT_EQ(gnuplot_script({}, plot_axes{}, "empty", "e.png"), "");
  // One group only: a table, not a sweep.
  EXPECT_EQ(gnuplot_script({row("", "coro", 16, 1), row("", "gp", 16, 2)}, plot_axes{.x = "group"}, "one", "o.png"), "");
  // No row has the y field.
  EXPECT_EQ(gnuplot_script({row("", "coro", 1, 1), row("", "coro", 2, 2)}, plot_axes{.x = "group", .y = "ns_per_op"}, "y",
                           "y.png"),
            "");
}

TEST(Plots, RendersAPngWhenGnuplotIsInstalled) {
  if (!gnuplot_available()) GTEST_SKIP() << "gnuplot not installed";
  const std::filesystem::path directory = std::filesystem::temp_directory_path() / ("braid-plots-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  const std::vector<result_row> rows = {row("", "coro", 1, 20), row("", "coro", 4, 30), row("", "naive", std::nullopt, 25)};
  const std::string png = (directory / "sweep.png").string();
  std::string problem;
  ASSERT_TRUE(render_plot(gnuplot_script(rows, plot_axes{.x = "group"}, "sweep", png), (directory / "sweep.gp").string(), problem))
      << problem;
  std::ifstream file(png, std::ios::binary);
  char magic[8] = {};
  file.read(magic, sizeof magic);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  EXPECT_FALSE(render_plot("this is not gnuplot\n", (directory / "bad.gp").string(), problem));
  EXPECT_NE(problem.find("gnuplot failed"), std::string::npos);
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace braid::bench
