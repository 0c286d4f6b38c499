#include "figures.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "experiment.hpp"
#include "registry.hpp"

namespace braid::bench {

std::optional<extent> statistic_of(const std::vector<result_row>& rows, const row_filter& where, const std::string& field,
                                   statistic computed, const std::string& best_by) {
  std::optional<extent> result;
  const result_row* best = nullptr;
  double best_value = -std::numeric_limits<double>::infinity();
  for (const result_row& row : rows) {
    if (!matches(row, where)) continue;
    const std::optional<double> value = row.number(field);
    if (computed == statistic::at_best) {
      const std::optional<double> key = row.number(best_by);
      if (value && key && *key > best_value) {
        best_value = *key;
        best = &row;
      }
      continue;
    }
    if (!value) continue;
    if (!result) result = extent{*value, *value};
    result->low = std::min(result->low, *value);
    result->high = std::max(result->high, *value);
  }
  if (computed == statistic::at_best) {
    if (best == nullptr) return std::nullopt;
    const double value = *best->number(field);
    return extent{value, value};
  }
  if (!result) return std::nullopt;
  switch (computed) {
    case statistic::maximum: return extent{result->high, result->high};
    case statistic::minimum: return extent{result->low, result->low};
    default: return result;
  }
}

paper_number paper_claim(std::string source, std::string claim, row_filter where, statistic computed, double low,
                         double high, shape_rule shape, std::string caveat, std::string field) {
  return {.source = std::move(source),
          .claim = std::move(claim),
          .where = std::move(where),
          .field = std::move(field),
          .computed = computed,
          .paper_low = low,
          .paper_high = high,
          .shape = shape,
          .caveat = std::move(caveat)};
}

paper_number paper_ratio(std::string source, std::string claim, row_filter where, row_filter relative_to,
                         std::string field, statistic computed, double paper, shape_rule shape, std::string caveat) {
  paper_number number = paper_claim(std::move(source), std::move(claim), std::move(where), computed, paper, paper, shape,
                                    std::move(caveat), std::move(field));
  number.relative_to = std::move(relative_to);
  return number;
}

bool matches(const result_row& row, const row_filter& filter) {
  for (const auto& [field, expected] : filter) {
    const field_value* value = row.find(field);
    if (value == nullptr || to_text(*value) != expected) {
      // Numbers also match by value ("1" matches 1.0).
      const std::optional<double> number = row.number(field);
      char* end = nullptr;
      const double wanted = std::strtod(expected.c_str(), &end);
      if (!number || expected.empty() || *end != '\0' || *number != wanted) return false;
    }
  }
  return true;
}

std::string format_number(double value) {
  std::ostringstream out;
  const double magnitude = std::abs(value);
  if (magnitude >= 100 || value == std::floor(value)) out << std::fixed << std::setprecision(0) << value;
  else if (magnitude >= 10) out << std::fixed << std::setprecision(1) << value;
  else if (magnitude >= 0.1) out << std::fixed << std::setprecision(2) << value;
  else out << std::setprecision(2) << value;
  std::string text = out.str();
  // Fixed notation: drop trailing zeros of the fraction ("5.60" -> "5.6", "2.00" -> "2").
  if (text.find('.') != std::string::npos && text.find('e') == std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

std::string paper_text(const paper_number& number) {
  if (number.paper_low == number.paper_high) return format_number(number.paper_low);
  return format_number(number.paper_low) + "–" + format_number(number.paper_high);
}

std::string comparison::ours_text() const {
  if (!measured) return "-";
  if (ours_low == ours_high) return format_number(ours_low);
  return format_number(ours_low) + "–" + format_number(ours_high);
}

std::string comparison::verdict() const {
  if (!measured) return "not measured in this run";
  if (!same_shape) return "-";
  return *same_shape ? "agrees in shape" : "differs in shape";
}

comparison compare(const paper_number& number, const std::vector<result_row>& rows) {
  comparison result;
  std::optional<extent> ours = statistic_of(rows, number.where, number.field, number.computed, number.best_by);
  if (ours && !number.relative_to.empty()) {
    const std::optional<extent> base =
        statistic_of(rows, number.relative_to, number.field, number.computed, number.best_by);
    if (!base || base->low == 0 || base->high == 0) {
      ours.reset();
    } else {
      // For maximum, minimum and at_best both extents are single values.
      ours = extent{ours->low / base->high, ours->high / base->low};
    }
  }
  if (!ours) return result;
  result.measured = true;
  result.ours_low = ours->low;
  result.ours_high = ours->high;
  switch (number.shape.test) {
    case shape_rule::kind::none: break;
    case shape_rule::kind::same_side_of: {
      const double t = number.shape.threshold;
      const bool paper_above = number.paper_low > t;
      const bool paper_below = number.paper_high < t;
      // A range that straddles the threshold agrees with either side.
      if (paper_above) result.same_shape = ours->high > t;
      else if (paper_below) result.same_shape = ours->low < t;
      else result.same_shape = true;
      break;
    }
    case shape_rule::kind::within_factor: {
      const double low = number.paper_low / number.shape.factor;
      const double high = number.paper_high * number.shape.factor;
      result.same_shape = ours->high >= low && ours->low <= high;
      break;
    }
  }
  return result;
}

figure_registration::figure_registration(figure definition) : name(definition.name) {
  if (definition.panels.empty()) throw std::logic_error("figure '" + definition.name + "' has no panel");
  register_sorted(std::move(definition));
}

figure_registration::figure_registration(const registration& of, figure definition)
    : figure_registration([&] {
        definition.experiment = of.name;
        return std::move(definition);
      }()) {}

const std::vector<figure>& figures() { return registered<figure>(); }

const figure* find_figure(const std::string& name) { return find_registered<figure>(name); }

}  // namespace braid::bench
