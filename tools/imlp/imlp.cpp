// The IMLP builder, its checks and its backends (see imlp.hpp).
#include "imlp.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace braid::imlp {

namespace {

location at_of(const std::source_location& at) { return {at.file_name(), static_cast<unsigned>(at.line())}; }

}  // namespace

// ---- the builder ------------------------------------------------------------------------------

node& block::add(imlp::kind k, here at) {
  statements_.push_back(node{});
  node& added = statements_.back();
  added.kind = k;
  added.where = at_of(at);
  return added;
}

block& block::misplaced(const char* call, const std::string& message, here at) {
  node& added = add(kind::invalid, at);
  added.type = call;
  added.text = message;
  return *this;
}

node* block::last_open(imlp::kind k) {
  if (statements_.empty()) return nullptr;
  node& last = statements_.back();
  return last.kind == k && last.open ? &last : nullptr;
}

block& block::Stmt(std::string text, here at) {
  add(kind::stmt, at).text = std::move(text);
  return *this;
}
block& block::Comment(std::string text, here at) {
  node& added = add(kind::stmt, at);
  added.text = "// " + std::move(text);
  added.target = "comment";
  return *this;
}
block& block::Variable(std::string type, std::string name, std::string init, here at) {
  node& added = add(kind::variable, at);
  added.type = std::move(type);
  added.target = std::move(name);
  added.text = std::move(init);
  return *this;
}
block& block::Assign(std::string target, std::string value, here at) {
  node& added = add(kind::assign, at);
  added.target = std::move(target);
  added.text = std::move(value);
  return *this;
}
block& block::Prefetch(std::string address, here at) {
  add(kind::prefetch, at).text = std::move(address);
  return *this;
}
block& block::Load(std::string target, std::string address, here at) {
  node& added = add(kind::load, at);
  added.target = std::move(target);
  added.text = std::move(address);
  return *this;
}
block& block::Store(std::string address, std::string value, here at) {
  node& added = add(kind::store, at);
  added.target = std::move(address);
  added.text = std::move(value);
  return *this;
}
block& block::Yield(std::string name, here at) {
  add(kind::yield, at).yield_name = std::move(name);
  return *this;
}
block& block::YieldStatic(std::string name, here at) {
  node& added = add(kind::yield, at);
  added.yield_name = std::move(name);
  added.yield_static = true;
  return *this;
}
block& block::If(std::string condition, here at) {
  node& added = add(kind::if_, at);
  added.text = std::move(condition);
  added.open = true;
  return *this;
}
block& block::Then(block body, here at) {
  node* pending = last_open(kind::if_);
  if (pending == nullptr) return misplaced("Then", "Then without an If before it", at);
  pending->body = std::move(body.statements_);
  pending->open = false;
  return *this;
}
block& block::Else(block body, here at) {
  node* pending = statements_.empty() ? nullptr : &statements_.back();
  if (pending == nullptr || pending->kind != kind::if_ || pending->open || !pending->otherwise.empty()) {
    return misplaced("Else", "Else without an If ... Then before it", at);
  }
  pending->otherwise = std::move(body.statements_);
  return *this;
}
block& block::While(std::string condition, here at) {
  if (node* pending = last_open(kind::do_while); pending != nullptr) {
    pending->text = std::move(condition);
    pending->open = false;
    return *this;
  }
  node& added = add(kind::while_, at);
  added.text = std::move(condition);
  added.open = true;
  return *this;
}
block& block::Do(block body, here at) {
  node* pending = last_open(kind::while_);
  if (pending == nullptr) return misplaced("Do", "Do without a While before it", at);
  pending->body = std::move(body.statements_);
  pending->open = false;
  return *this;
}
block& block::DoWhile(block body, here at) {
  node& added = add(kind::do_while, at);
  added.body = std::move(body.statements_);
  added.open = true;
  return *this;
}
block& block::Switch(std::string value, here at) {
  node& added = add(kind::switch_, at);
  added.text = std::move(value);
  added.open = true;
  return *this;
}
block& block::Case(std::string value, block body, here at) {
  node* pending = last_open(kind::switch_);
  if (pending == nullptr) return misplaced("Case", "Case without a Switch before it", at);
  pending->cases.emplace_back(std::move(value), std::move(body.statements_));
  return *this;
}
block& block::Default(block body, here at) {
  node* pending = last_open(kind::switch_);
  if (pending == nullptr) return misplaced("Default", "Default without a Switch before it", at);
  pending->cases.emplace_back(std::string{}, std::move(body.statements_));
  pending->open = false;
  return *this;
}
block& block::Break(here at) {
  add(kind::break_, at);
  return *this;
}
block& block::Continue(here at) {
  add(kind::continue_, at);
  return *this;
}
block& block::Return(std::string value, here at) {
  add(kind::return_, at).text = std::move(value);
  return *this;
}
block& block::Call(std::vector<std::string> arguments, here at) {
  add(kind::call, at).arguments = std::move(arguments);
  return *this;
}

block Stmt(std::string text, block::here at) { return block{}.Stmt(std::move(text), at); }
block Comment(std::string text, block::here at) { return block{}.Comment(std::move(text), at); }
block Variable(std::string type, std::string name, std::string init, block::here at) {
  return block{}.Variable(std::move(type), std::move(name), std::move(init), at);
}
block Assign(std::string target, std::string value, block::here at) {
  return block{}.Assign(std::move(target), std::move(value), at);
}
block Prefetch(std::string address, block::here at) { return block{}.Prefetch(std::move(address), at); }
block Load(std::string target, std::string address, block::here at) {
  return block{}.Load(std::move(target), std::move(address), at);
}
block Store(std::string address, std::string value, block::here at) {
  return block{}.Store(std::move(address), std::move(value), at);
}
block Yield(std::string name, block::here at) { return block{}.Yield(std::move(name), at); }
block If(std::string condition, block::here at) { return block{}.If(std::move(condition), at); }
block While(std::string condition, block::here at) { return block{}.While(std::move(condition), at); }
block DoWhile(block body, block::here at) { return block{}.DoWhile(std::move(body), at); }
block Switch(std::string value, block::here at) { return block{}.Switch(std::move(value), at); }
block Break(block::here at) { return block{}.Break(at); }
block Continue(block::here at) { return block{}.Continue(at); }
block Return(std::string value, block::here at) { return block{}.Return(std::move(value), at); }
block Call(std::vector<std::string> arguments, block::here at) { return block{}.Call(std::move(arguments), at); }

coroutine::coroutine(std::string name, here at) : name_(std::move(name)), where_(at_of(at)) {}
coroutine& coroutine::Doc(std::string text) {
  doc_ = std::move(text);
  return *this;
}
coroutine& coroutine::Template(std::string parameters) {
  template_parameters_ = std::move(parameters);
  return *this;
}
coroutine& coroutine::Include(std::string header) {
  includes_.push_back(header.starts_with('<') ? header : "\"" + header + "\"");
  return *this;
}
coroutine& coroutine::Result(std::string type, here) {
  result_ = std::move(type);
  return *this;
}
coroutine& coroutine::Arg(std::string type, std::string name, here at) {
  args_.push_back({std::move(type), std::move(name), at_of(at)});
  return *this;
}
coroutine& coroutine::SharedArg(std::string type, std::string name, here at) {
  shared_.push_back({std::move(type), std::move(name), at_of(at)});
  return *this;
}
coroutine& coroutine::Variable(std::string type, std::string name, here at) {
  variables_.push_back({std::move(type), std::move(name), at_of(at)});
  return *this;
}
coroutine& coroutine::Body(block body, here at) {
  body_ = body.statements();
  body_where_ = at_of(at);
  has_body_ = true;
  return *this;
}

std::map<std::string, kernel_factory>& registry() {
  static std::map<std::string, kernel_factory> kernels;
  return kernels;
}

// ---- checks and emission ----------------------------------------------------------------------

namespace {

const std::set<std::string> not_declarations = {"return", "delete", "throw", "goto", "else", "case", "co_return",
                                                "using", "typedef", "new", "sizeof"};

std::set<std::string> identifiers(const std::string& text) {
  static const std::regex word(R"([A-Za-z_][A-Za-z0-9_]*)");
  std::set<std::string> found;
  // Skip member names (after . or ->) and qualified parts (after ::).
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it) {
    const auto start = static_cast<std::size_t>(it->position());
    if (start > 0 && (text[start - 1] == '.' || (start > 1 && text.compare(start - 2, 2, "->") == 0) ||
                      (start > 1 && text.compare(start - 2, 2, "::") == 0))) {
      continue;
    }
    if (start > 0 && (std::isalnum(static_cast<unsigned char>(text[start - 1])) != 0)) continue;
    found.insert(it->str());
  }
  return found;
}

// Names an opaque statement declares as locals: `Type name = ...`, `auto name{...}`, `T* name;`.
std::vector<std::string> declared_locals(const std::string& text) {
  static const std::regex declaration(
      R"(^\s*(?:(?:const|constexpr|static|volatile)\s+)*([A-Za-z_][\w:]*)(?:<[^;=(){}]*>)?[\s*&]+([A-Za-z_]\w*)\s*(?:=|\{|$))");
  std::vector<std::string> names;
  std::string statement;
  auto consider = [&] {
    std::smatch match;
    if (std::regex_search(statement, match, declaration) && not_declarations.count(match[1].str()) == 0) {
      names.push_back(match[2].str());
    }
    statement.clear();
  };
  for (char c : text) {
    if (c == ';' || c == '{' || c == '}') {
      consider();
    } else {
      statement += c;
    }
  }
  consider();
  return names;
}

std::string leading_identifier(const std::string& text) {
  static const std::regex word(R"(^\s*\**\s*\(?\s*([A-Za-z_]\w*))");
  std::smatch match;
  return std::regex_search(text, match, word) ? match[1].str() : std::string{};
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

// The `// comment` on a line of C++, outside string literals ("" if none).
std::string trailing_comment(const std::string& line) {
  bool in_string = false;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '/' && line[i + 1] == '/') {
      return trim(line.substr(i + 2));
    }
  }
  return {};
}

enum class mode { plain, switch_dispatch, goto_dispatch, at_stage };

// Clang's std::source_location::current() in a chained call reports the line where the chain
// starts, GCC the line of the call. The locator finds each statement's own line: the builder
// calls appear in the kernel file in the order of a preorder walk of the statements, so it scans
// the file's identifiers (outside strings and comments) for each call's name, in that order,
// from the line the compiler reported.
class locator {
 public:
  void resolve(nodes& body) {
    for (node& n : body) {
      place(n, keyword(n));
      resolve(n.body);
      if (n.kind == kind::do_while) skip_to(n.where, "While");
      resolve(n.otherwise);
      for (auto& [value, nested] : n.cases) resolve(nested);
    }
  }

 private:
  struct token {
    std::string word;
    unsigned line;
  };

  static std::string keyword(const node& n) {
    switch (n.kind) {
      case kind::stmt: return n.target == "comment" ? "Comment" : "Stmt";
      case kind::variable: return "Variable";
      case kind::assign: return "Assign";
      case kind::prefetch: return "Prefetch";
      case kind::load: return "Load";
      case kind::store: return "Store";
      case kind::yield: return n.yield_static ? "YieldStatic" : "Yield";
      case kind::if_: return "If";
      case kind::while_: return "While";
      case kind::do_while: return "DoWhile";
      case kind::switch_: return "Switch";
      case kind::break_: return "Break";
      case kind::continue_: return "Continue";
      case kind::return_: return "Return";
      case kind::call: return "Call";
      case kind::invalid: return n.type;
    }
    return {};
  }

  const std::vector<token>& tokens_of(const std::string& file) {
    auto [it, fresh] = files_.try_emplace(file);
    if (!fresh) return it->second;
    std::ifstream in(file);
    std::ostringstream text_stream;
    text_stream << in.rdbuf();
    const std::string text = text_stream.str();
    unsigned line = 1;
    for (std::size_t i = 0; i < text.size();) {
      const char c = text[i];
      if (c == '\n') {
        ++line;
        ++i;
      } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
        while (i < text.size() && text[i] != '\n') ++i;
      } else if (c == 'R' && i + 1 < text.size() && text[i + 1] == '"') {  // raw string R"delim( ... )delim"
        const std::size_t open = text.find('(', i);
        const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
        const std::size_t end = text.find(close, open);
        const std::size_t stop = end == std::string::npos ? text.size() : end + close.size();
        line += static_cast<unsigned>(std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                                                 text.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
        i = stop;
      } else if (c == '"' || c == '\'') {
        for (++i; i < text.size() && text[i] != c; ++i) {
          if (text[i] == '\\') ++i;
        }
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
        std::size_t end = i;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) ++end;
        std::size_t next = end;
        while (next < text.size() && (text[next] == ' ' || text[next] == '\n')) ++next;
        if (next < text.size() && text[next] == '(') it->second.push_back({text.substr(i, end - i), line});
        i = end;
      } else {
        ++i;
      }
    }
    return it->second;
  }

  // Moves n.where to the first call of `word` at or after both the cursor and n's reported line.
  void place(node& n, const std::string& word) { skip_to(n.where, word); }

  void skip_to(location& where, const std::string& word) {
    const auto& tokens = tokens_of(where.file);
    std::size_t& cursor = cursors_[where.file];
    std::size_t i = cursor;
    while (i < tokens.size() && tokens[i].line < where.line) ++i;
    for (; i < tokens.size(); ++i) {
      if (tokens[i].word == word) {
        where.line = tokens[i].line;
        cursor = i + 1;
        return;
      }
    }
  }

  std::map<std::string, std::vector<token>> files_;
  std::map<std::string, std::size_t> cursors_;
};

}  // namespace

class emitter {
 public:
  emitter(const coroutine& c, std::string root) : c_(c), root_(std::move(root)) {}

  std::string run() {
    check_signature();
    state_names_.push_back("start");
    state_static_.push_back(true);
    number_states(c_.body_);
    check_body(c_.body_, 0, 0, false);
    check_locals();
    find_written(c_.body_);
    if (c_.result_ != "void" && (c_.body_.empty() || (c_.body_.back().kind != kind::return_ &&
                                                      c_.body_.back().kind != kind::call))) {
      throw error(c_.body_where_, "kernel '" + c_.name_ + "' returns " + c_.result_ +
                                      " but its Body can run off its end: end it with Return");
    }
    return header();
  }

 private:
  // -- checks --------------------------------------------------------------------------------
  void declare(const declaration& d, const char* what) {
    if (d.name.starts_with("imlp_")) throw error(d.where, std::string(what) + " '" + d.name + "': names starting imlp_ are the generator's");
    if (auto [it, fresh] = names_.emplace(d.name, d.where); !fresh) {
      throw error(d.where, std::string(what) + " '" + d.name + "' is declared twice (first at " + it->second.file + ":" +
                               std::to_string(it->second.line) + ")");
    }
  }

  void check_signature() {
    if (!c_.has_body_) throw error(c_.where_, "kernel '" + c_.name_ + "' has no Body");
    for (const auto& d : c_.args_) declare(d, "Arg");
    for (const auto& d : c_.shared_) declare(d, "SharedArg");
    for (const auto& d : c_.variables_) declare(d, "Variable");
    for (const auto& d : c_.args_) writable_.insert(d.name);
    for (const auto& d : c_.variables_) writable_.insert(d.name);
    collect_block_variables(c_.body_);
  }

  void collect_block_variables(const nodes& body) {
    for (const node& n : body) {
      if (n.kind == kind::variable) {
        declaration d{n.type, n.target, n.where};
        declare(d, "Variable");
        block_variables_.push_back(d);
        writable_.insert(n.target);
      }
      collect_block_variables(n.body);
      collect_block_variables(n.otherwise);
      for (const auto& [value, nested] : n.cases) collect_block_variables(nested);
    }
  }

  // The names a statement may write: Assign / Load / Store / Variable targets, every name an
  // opaque statement mentions, every Arg when the kernel Calls itself. An Arg outside this set
  // is an input: a step holds it const and never writes it back.
  void find_written(const nodes& body) {
    for (const node& n : body) {
      switch (n.kind) {
        case kind::stmt:
          if (n.target != "comment") written_.merge(identifiers(n.text));
          break;
        case kind::assign:
        case kind::load:
        case kind::store:
        case kind::variable: written_.merge(identifiers(n.target)); break;
        case kind::call:
          for (const auto& d : c_.args_) written_.insert(d.name);
          break;
        default: break;
      }
      find_written(n.body);
      find_written(n.otherwise);
      for (const auto& [value, nested] : n.cases) find_written(nested);
    }
  }

  bool is_input(const declaration& d) const {
    return std::any_of(c_.args_.begin(), c_.args_.end(), [&d](const declaration& a) { return a.name == d.name; }) &&
           !written_.contains(d.name);
  }

  void number_states(const nodes& body) {
    for (const node& n : body) {
      if (n.kind == kind::invalid) throw error(n.where, n.text);
      if (n.kind == kind::yield || n.kind == kind::load || n.kind == kind::store) {
        std::string name = n.yield_name;
        if (name.empty()) name = (n.kind == kind::yield ? "stage_" : n.kind == kind::load ? "load_" : "store_") +
                                 std::to_string(state_names_.size());
        if (name == "finished" || std::find(state_names_.begin(), state_names_.end(), name) != state_names_.end()) {
          throw error(n.where, "Yield name '" + name + "' is used twice");
        }
        state_of_[&n] = state_names_.size();
        state_names_.push_back(name);
        state_static_.push_back(n.yield_static);
      }
      number_states(n.body);
      number_states(n.otherwise);
      for (const auto& [value, nested] : n.cases) number_states(nested);
    }
  }

  static bool yields(const nodes& body) {
    return std::any_of(body.begin(), body.end(), [](const node& n) {
      if (n.kind == kind::yield || n.kind == kind::load || n.kind == kind::store) return true;
      if (yields(n.body) || yields(n.otherwise)) return true;
      return std::any_of(n.cases.begin(), n.cases.end(), [](const auto& c) { return yields(c.second); });
    });
  }

  void check_writable(const node& n, const std::string& lvalue, const char* what) {
    const std::string name = leading_identifier(lvalue);
    if (writable_.count(name) == 0) {
      throw error(n.where, std::string(what) + " writes '" + lvalue + "': '" + name +
                               "' is not an Arg or a Variable of kernel '" + c_.name_ + "'");
    }
  }

  // loops: enclosing loops; breakable: loops + switches; in_yielding_switch: a Continue there
  // would leave the lowered switch, not continue the loop.
  void check_body(const nodes& body, int loops, int breakable, bool in_yielding_switch) {
    static const std::regex suspension(R"(\b(Yield|co_await|co_yield|co_return|return)\b|\bcase\b[^:]*:)");
    for (const node& n : body) {
      if (n.kind == kind::invalid) throw error(n.where, n.text);
      if (n.open && n.kind != kind::switch_) {
        throw error(n.where, n.kind == kind::if_ ? "If without Then" : n.kind == kind::while_ ? "While without Do"
                                                                                              : "DoWhile without While");
      }
      for (const std::string* text : {&n.text, &n.target}) {
        if (n.target == "comment") break;
        if (std::regex_search(*text, suspension)) {
          throw error(n.where, "a suspension or return (Yield, co_await, co_yield, return or a case label) inside opaque text: '" +
                                   trim(*text) + "'; write it as a Yield or Return statement of the kernel");
        }
      }
      opaque_.push_back(&n);
      switch (n.kind) {
        case kind::assign: check_writable(n, n.target, "Assign"); break;
        case kind::load: check_writable(n, n.target, "Load"); break;
        case kind::break_:
          if (breakable == 0) throw error(n.where, "Break outside a While, DoWhile or Switch");
          break;
        case kind::continue_:
          if (loops == 0) throw error(n.where, "Continue outside a While or DoWhile");
          if (in_yielding_switch) throw error(n.where, "Continue inside a Switch that yields is not supported");
          break;
        case kind::call:
          if (n.arguments.size() != c_.args_.size()) {
            throw error(n.where, "Call passes " + std::to_string(n.arguments.size()) + " arguments; kernel '" +
                                     c_.name_ + "' has " + std::to_string(c_.args_.size()) + " Args");
          }
          has_call_ = true;
          break;
        case kind::return_:
          if (c_.result_ == "void" && !trim(n.text).empty()) throw error(n.where, "Return with a value in a void kernel");
          if (c_.result_ != "void" && trim(n.text).empty()) throw error(n.where, "Return without a value; the kernel returns " + c_.result_);
          break;
        default: break;
      }
      check_body(n.body, loops + (n.kind == kind::while_ || n.kind == kind::do_while),
                 breakable + (n.kind == kind::while_ || n.kind == kind::do_while), false);
      check_body(n.otherwise, loops, breakable, in_yielding_switch);
      for (const auto& [value, nested] : n.cases) {
        check_body(nested, loops, breakable + 1, in_yielding_switch || yields({n}));
      }
    }
  }

  // A local of one opaque statement is gone at its closing brace: a later mention of the name
  // (after a Yield, or in another statement) is an undeclared variable.
  void check_locals() {
    for (std::size_t i = 0; i < opaque_.size(); ++i) {
      const node& declaring = *opaque_[i];
      if (declaring.kind != kind::stmt || declaring.target == "comment") continue;
      for (const std::string& local : declared_locals(declaring.text)) {
        if (names_.count(local) != 0) continue;  // shadows a context name: the author's choice
        for (std::size_t j = 0; j < opaque_.size(); ++j) {
          if (j == i) continue;
          const node& user = *opaque_[j];
          std::set<std::string> used = identifiers(user.text);
          for (const std::string& part : identifiers(user.target)) used.insert(part);
          for (const std::string& argument : user.arguments) {
            for (const std::string& part : identifiers(argument)) used.insert(part);
          }
          if (used.count(local) != 0 && !declares(user, local)) {
            throw error(user.where, "'" + local + "' is a local of the opaque statement at " + declaring.where.file + ":" +
                                        std::to_string(declaring.where.line) +
                                        " and does not live across a Yield or into another statement: declare it with "
                                        "Variable");
          }
        }
      }
    }
  }

  static bool declares(const node& n, const std::string& name) {
    if (n.kind != kind::stmt) return false;
    const auto locals = declared_locals(n.text);
    return std::find(locals.begin(), locals.end(), name) != locals.end();
  }

  // -- emission ------------------------------------------------------------------------------
  std::string relative(const std::string& file) const {
    if (!root_.empty() && file.starts_with(root_)) {
      std::string cut = file.substr(root_.size());
      while (cut.starts_with('/')) cut.erase(0, 1);
      return cut;
    }
    return file;
  }

  std::string comment_of(const location& where) {
    auto& lines = sources_[where.file];
    if (lines.empty()) {
      std::ifstream in(where.file);
      for (std::string line; std::getline(in, line);) lines.push_back(line);
      if (lines.empty()) lines.push_back({});
    }
    if (where.line == 0 || where.line > lines.size()) return {};
    if (!commented_.insert({where.file, where.line}).second) return {};
    return trailing_comment(lines[where.line - 1]);
  }

  void line(std::ostringstream& out, int depth, const std::string& text) {
    out << std::string(static_cast<std::size_t>(depth) * 2, ' ') << text << '\n';
  }

  void statement_text(std::ostringstream& out, int depth, const std::string& text) {
    std::istringstream lines(trim(text));
    std::vector<std::string> parts;
    for (std::string part; std::getline(lines, part);) parts.push_back(part);
    if (parts.size() <= 1) {
      line(out, depth, "{ " + trim(text) + " }");
      return;
    }
    // A multi-line statement keeps its own relative indentation.
    std::size_t common = std::string::npos;
    for (std::size_t k = 1; k < parts.size(); ++k) {
      if (trim(parts[k]).empty()) continue;
      common = std::min(common, parts[k].find_first_not_of(" \t"));
    }
    if (common == std::string::npos) common = 0;
    line(out, depth, "{");
    line(out, depth + 1, trim(parts[0]));
    for (std::size_t k = 1; k < parts.size(); ++k) line(out, depth + 1, parts[k].size() > common ? parts[k].substr(common) : trim(parts[k]));
    line(out, depth, "}");
  }

  std::string state_ref(std::size_t s) const { return "state::" + state_names_[s]; }

  void suspend(std::ostringstream& out, int depth, std::size_t s, mode m) {
    if (!saved_fields().empty()) line(out, depth, "imlp_save();");
    line(out, depth, "imlp_at = " + state_ref(s) + ";");
    line(out, depth, "return false;");
    if (m == mode::goto_dispatch) {
      line(out, depth - 1, "resume_" + state_names_[s] + ":");
    } else {
      line(out, depth - 1, "case " + state_ref(s) + ":");
    }
  }

  void emit(std::ostringstream& out, const nodes& body, int depth, mode m) {
    const bool machine = m != mode::plain;
    const node* previous = nullptr;
    for (const node& n : body) {
      if (const std::string note = comment_of(n.where); !note.empty()) line(out, depth, "// " + note);
      const bool after_prefetch = previous != nullptr && previous->kind == kind::prefetch;
      previous = &n;
      switch (n.kind) {
        case kind::stmt:
          if (n.target == "comment") line(out, depth, n.text);
          else statement_text(out, depth, n.text);
          break;
        case kind::variable:
          if (!trim(n.text).empty()) line(out, depth, n.target + " = " + trim(n.text) + ";");
          break;
        case kind::assign: line(out, depth, trim(n.target) + " = " + trim(n.text) + ";"); break;
        case kind::prefetch:
          if (machine) line(out, depth, "::braid::prefetch<Hint>(" + trim(n.text) + ");");
          break;
        case kind::yield:
          if (machine && n.yield_static && !after_prefetch && (m == mode::switch_dispatch || m == mode::goto_dispatch)) {
            // A YieldStatic after no prefetch only splits stages for the static schedules: the
            // dynamic step runs on through it (its label stays: the hybrid schedule may hand
            // over a context that stopped there).
            line(out, depth, "// " + state_names_[state_of_.at(&n)] + ": a stage split of the static schedules only");
            if (m == mode::switch_dispatch) line(out, depth, "[[fallthrough]];");
            line(out, depth - 1, (m == mode::goto_dispatch ? "resume_" + state_names_[state_of_.at(&n)] : "case " + state_ref(state_of_.at(&n))) + ":");
          } else if (machine) {
            suspend(out, depth, state_of_.at(&n), m);
          }
          if (machine && &n == &body.back()) line(out, depth, ";  // a label needs a statement after it");
          break;
        case kind::load:
          if (machine) {
            line(out, depth, "::braid::prefetch<Hint>(" + trim(n.text) + ");");
            suspend(out, depth, state_of_.at(&n), m);
          }
          line(out, depth, trim(n.target) + " = *(" + trim(n.text) + ");");
          break;
        case kind::store:
          if (machine) {
            line(out, depth, "::braid::prefetch<::braid::prefetch_hint::write>(" + trim(n.target) + ");");
            suspend(out, depth, state_of_.at(&n), m);
          }
          line(out, depth, "*(" + trim(n.target) + ") = " + trim(n.text) + ";");
          break;
        case kind::if_:
          line(out, depth, "if (" + trim(n.text) + ") {");
          emit(out, n.body, depth + 1, m);
          if (!n.otherwise.empty()) {
            line(out, depth, "} else {");
            emit(out, n.otherwise, depth + 1, m);
          }
          line(out, depth, "}");
          break;
        case kind::while_:
          line(out, depth, "while (" + trim(n.text) + ") {");
          emit(out, n.body, depth + 1, m);
          line(out, depth, "}");
          break;
        case kind::do_while:
          line(out, depth, "do {");
          emit(out, n.body, depth + 1, m);
          line(out, depth, "} while (" + trim(n.text) + ");");
          break;
        case kind::switch_:
          if (machine && yields({n})) {
            // A case label of the state machine cannot sit inside a native switch: the Switch
            // becomes an if chain inside do { } while (false), which Break leaves.
            line(out, depth, "do {");
            bool first = true;
            for (const auto& [value, nested] : n.cases) {
              if (value.empty()) {
                line(out, depth + 1, first ? "{" : "} else {");
              } else {
                line(out, depth + 1, std::string(first ? "" : "} else ") + "if ((" + trim(n.text) + ") == (" + value + ")) {");
              }
              emit(out, nested, depth + 2, m);
              first = false;
            }
            if (!first) line(out, depth + 1, "}");
            line(out, depth, "} while (false);");
          } else {
            line(out, depth, "switch (" + trim(n.text) + ") {");
            for (const auto& [value, nested] : n.cases) {
              line(out, depth + 1, value.empty() ? "default: {" : "case " + value + ": {");
              emit(out, nested, depth + 2, m);
              line(out, depth + 2, "break;");
              line(out, depth + 1, "}");
            }
            line(out, depth, "}");
          }
          break;
        case kind::break_: line(out, depth, "break;"); break;
        case kind::continue_: line(out, depth, "continue;"); break;
        case kind::return_:
          if (!machine) {
            line(out, depth, trim(n.text).empty() ? "return;" : "return " + trim(n.text) + ";");
          } else {
            line(out, depth, "imlp_sink(imlp_slots, imlp_i" + sunk_value(n.text) + ");");
            line(out, depth, "imlp_at = state::finished;");
            line(out, depth, "return true;");
          }
          break;
        case kind::invalid: break;
        case kind::call: {
          line(out, depth, "{  // tail call: the Args take new values and the kernel restarts");
          for (std::size_t k = 0; k < n.arguments.size(); ++k) {
            line(out, depth + 1, "auto imlp_next_" + std::to_string(k) + " = " + trim(n.arguments[k]) + ";");
          }
          for (std::size_t k = 0; k < n.arguments.size(); ++k) {
            line(out, depth + 1, c_.args_[k].name + " = std::move(imlp_next_" + std::to_string(k) + ");");
          }
          line(out, depth, "}");
          line(out, depth, "goto imlp_restart;");
          break;
        }
      }
    }
  }

  std::string template_head() const {
    return "template <::braid::prefetch_hint Hint" + (c_.template_parameters_.empty() ? "" : ", " + c_.template_parameters_) + ">";
  }

  std::vector<declaration> context_fields() const {
    std::vector<declaration> fields = c_.args_;
    fields.insert(fields.end(), c_.variables_.begin(), c_.variables_.end());
    fields.insert(fields.end(), block_variables_.begin(), block_variables_.end());
    return fields;
  }

  bool has_result() const { return c_.result_ != "void"; }

  // A Return's value as the sink's last argument (", value"; "" for a void kernel). A braced list
  // is a result_type's: a forwarding sink cannot take a braced list itself.
  std::string sunk_value(const std::string& text) const {
    const std::string value = trim(text);
    if (value.empty()) return "";
    return ", " + (value.front() == '{' ? "result_type" + value : value);
  }

  // The end of a machine that runs off its body (a void kernel): delivered like a Return.
  void finish_off_end(std::ostringstream& out, int depth) {
    if (ends_in_return()) return;
    line(out, depth, "imlp_sink(imlp_slots, imlp_i);");
    line(out, depth, "imlp_at = state::finished;");
    line(out, depth, "return true;");
  }

  // The context fields a step writes back when it suspends: all but the inputs.
  std::vector<declaration> saved_fields() const {
    std::vector<declaration> saved;
    for (const auto& d : context_fields()) {
      if (!is_input(d)) saved.push_back(d);
    }
    return saved;
  }

  void references(std::ostringstream& out, int depth) {
    for (const auto& d : c_.shared_) line(out, depth, "[[maybe_unused]] const auto& " + d.name + " = imlp_shared." + d.name + ";");
    // Small fields live in locals for the step and are written back when it suspends
    // (braid/core/detail/imlp_locals.hpp); the others are the context's own, by reference.
    // An input (an Arg no statement writes) is const and stays out of the write-back.
    for (const auto& d : context_fields()) {
      line(out, depth, "[[maybe_unused]] ::braid::detail::" + std::string(is_input(d) ? "imlp_input_t<" : "imlp_local_t<") +
                           d.type + "> " + d.name + " = imlp_slots." + d.name + "(imlp_i);");
    }
    if (!saved_fields().empty()) {
      line(out, depth, "[[maybe_unused]] const auto imlp_save = [&] {  // before a suspension");
      for (const auto& d : saved_fields()) {
        line(out, depth + 1, "::braid::detail::imlp_write_back(imlp_slots." + d.name + "(imlp_i), " + d.name + ");");
      }
      line(out, depth, "};");
    }
    line(out, depth, "state& imlp_at = imlp_slots.at(imlp_i);");
  }

  bool ends_in_return() const {
    return !c_.body_.empty() && (c_.body_.back().kind == kind::return_ || c_.body_.back().kind == kind::call);
  }

  void machine(std::ostringstream& out, mode m) {
    const int d = 2;
    commented_.clear();
    if (m == mode::goto_dispatch) {
      line(out, d, "static void* const imlp_targets[] = {");
      for (const auto& name : state_names_) line(out, d + 2, "&&resume_" + name + ",");
      line(out, d + 2, "&&resume_finished};");
      line(out, d, "goto* imlp_targets[static_cast<std::size_t>(imlp_at)];");
      line(out, d, "resume_finished:");
      line(out, d + 1, "return true;");
      line(out, d, "resume_start:");
      if (has_call_) line(out, d, "imlp_restart:");
      emit(out, c_.body_, d + 1, m);
      finish_off_end(out, d + 1);
      return;
    }
    line(out, d, std::string("switch (") +
                     (m == mode::at_stage ? "Stage" : "Entry == entry::started ? state::start : imlp_at") + ") {");
    line(out, d + 1, "case state::finished:");
    line(out, d + 2, "return true;");
    line(out, d + 1, "case state::start:");
    if (m == mode::switch_dispatch) {
      line(out, d + 2, "if constexpr (Entry == entry::resumed) __builtin_unreachable();  // the caller's promise");
    }
    if (has_call_) line(out, d + 1, "imlp_restart:");
    emit(out, c_.body_, d + 2, m);
    finish_off_end(out, d + 2);
    line(out, d, "}");
    line(out, d, "return true;");
  }

  void super_step(std::ostringstream& out, bool hybrid) {
    // GCC cannot see that a state's list is read only below its count, which the pass filled.
    if (hybrid) {
      out << "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC diagnostic push\n"
             "#pragma GCC diagnostic ignored \"-Wmaybe-uninitialized\"\n#endif\n";
    }
    line(out, 1, "template <class Slots, class Done, class Sink = keep_result>");
    line(out, 1, std::string("static void super_step_") + (hybrid ? "hybrid" : "static") +
                     "(Slots& imlp_slots, std::size_t active, const shared_args& imlp_shared,");
    line(out, 6, "Done&& done, Sink&& imlp_sink = Sink{}) {");
    if (hybrid) {
      hybrid_rounds(out);
    } else {
      static_rounds(out);
    }
    line(out, 1, "}");
    if (hybrid) out << "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC diagnostic pop\n#endif\n";
    out << '\n';
  }

  // A static batch moves in lock step, so the states of a round are few and each stage's loop
  // tests every context's state (a branch the core predicts) and runs only when some context
  // entered the round in that stage (a bit per state of `present`; the finished state is one
  // past the named ones, so at most 63 named states).
  void static_rounds(std::ostringstream& out) {
    const bool masked = state_names_.size() < 64;
    line(out, 2, "state entered[Slots::width];");
    if (masked) {
      line(out, 2, "std::uint64_t present = 0;  // bit s: a context entered this round in state s");
      line(out, 2, "for (std::size_t i = 0; i < active; ++i) {");
      line(out, 3, "entered[i] = imlp_slots.at(i);");
      line(out, 3, "present |= std::uint64_t{1} << static_cast<unsigned>(entered[i]);");
      line(out, 2, "}");
    } else {
      line(out, 2, "for (std::size_t i = 0; i < active; ++i) entered[i] = imlp_slots.at(i);");
    }
    for (std::size_t s = 0; s < state_names_.size(); ++s) {
      line(out, 2, "// stage " + state_names_[s]);
      const int d = masked ? 3 : 2;
      if (masked) line(out, 2, "if ((present >> static_cast<unsigned>(" + state_ref(s) + ")) & 1) {");
      line(out, d, "for (std::size_t i = 0; i < active; ++i) {");
      line(out, d + 1, "if (entered[i] == " + state_ref(s) + " && step_at<" + state_ref(s) + ">(imlp_slots, i, imlp_shared, imlp_sink)) done(i);");
      line(out, d, "}");
      if (masked) line(out, 2, "}");
    }
  }

  // The hybrid refills a finished context at once, so its contexts' states mix and a test of
  // each context's state in each stage's loop is a branch the core mispredicts. One pass lists
  // the contexts by the state they entered the round in (slot order kept); each stage's loop
  // then runs its own list.
  void hybrid_rounds(std::ostringstream& out) {
    line(out, 2, "std::uint32_t entered[stage_count + 1][Slots::width];  // [state]: its slots, in order");
    line(out, 2, "std::size_t entered_count[stage_count + 1] = {};  // the last: finished");
    line(out, 2, "for (std::size_t i = 0; i < active; ++i) {");
    line(out, 3, "const auto s = static_cast<std::size_t>(imlp_slots.at(i));");
    line(out, 3, "entered[s][entered_count[s]++] = static_cast<std::uint32_t>(i);");
    line(out, 2, "}");
    for (std::size_t s = 0; s < state_names_.size(); ++s) {
      const std::string n = std::to_string(s);
      line(out, 2, "// stage " + state_names_[s] + (state_static_[s] ? "" : ", dynamic: through the switch"));
      line(out, 2, "for (std::size_t k = 0; k < entered_count[" + n + "]; ++k) {");
      line(out, 3, "const std::size_t i = entered[" + n + "][k];");
      line(out, 3, "if (" + (state_static_[s] ? "step_at<" + state_ref(s) + ">" : std::string("step")) +
                       "(imlp_slots, i, imlp_shared, imlp_sink)) done(i);");
      line(out, 2, "}");
    }
  }

  std::string parameter_list(bool with_shared) const {
    std::string list = with_shared ? "[[maybe_unused]] const shared_args& imlp_shared" : "";
    for (const auto& d : c_.args_) list += (list.empty() ? "" : ", ") + d.type + " " + d.name;
    return list;
  }

  // The contexts of W coroutines: `soa` (a column per field) or `aos` (a struct per context),
  // with one accessor per field either way.
  void layout(std::ostringstream& out, const std::vector<declaration>& fields, bool soa) {
    const std::string field = soa ? "[W]{};" : "{};";
    const auto access = [soa](const std::string& name) {
      return soa ? "columns." + name + "[i]" : "contexts[i]." + name;
    };
    line(out, 1, soa ? "// W contexts as a struct of arrays." : "// W contexts as an array of structs.");
    line(out, 1, "template <std::size_t W>");
    line(out, 1, soa ? "struct soa {" : "struct aos {");
    line(out, 2, "static constexpr std::size_t width = W;");
    line(out, 2, soa ? "struct columns_type {" : "struct context {");
    for (const auto& f : fields) line(out, 3, f.type + " " + f.name + field);
    if (has_result()) line(out, 3, "result_type result" + field);
    line(out, 3, soa ? "state at[W]{};" : "state at = state::finished;");
    line(out, 2, soa ? "} columns;" : "};");
    if (!soa) line(out, 2, "context contexts[W];");
    for (const auto& f : fields) {
      line(out, 2, f.type + "& " + f.name + "(std::size_t i) noexcept { return " + access(f.name) + "; }");
    }
    if (has_result()) line(out, 2, "result_type& result(std::size_t i) noexcept { return " + access("result") + "; }");
    line(out, 2, "state& at(std::size_t i) noexcept { return " + access("at") + "; }");
    line(out, 1, "};");
  }

  // One of the step functions: `head` is its template head, `name` its name.
  void step_function(std::ostringstream& out, const std::string& comment, const std::string& head,
                     const std::string& name, mode m) {
    line(out, 1, comment);
    line(out, 1, head);
    // Always inlined into the scheduler's loop: a call per step (argument set-up, saved
    // registers, the shared arguments reloaded) costs as much as a short step itself. Not the
    // computed-goto step: its static table of label addresses forbids copies (GCC refuses).
    const std::string inlined = m == mode::goto_dispatch ? "" : "[[gnu::always_inline]] ";
    line(out, 1, inlined + "static bool " + name +
                     "(Slots& imlp_slots, std::size_t imlp_i, [[maybe_unused]] const shared_args& imlp_shared,");
    line(out, 6, "Sink&& imlp_sink = Sink{}) {");
    references(out, 2);
    machine(out, m);
    line(out, 1, "}");
  }

  std::string header() {
    std::ostringstream out;
    const std::string file = relative(c_.where_.file);
    out << "// Generated by braid-imlp from " << file << " (kernel " << c_.name_ << "): do not edit.\n";
    if (!c_.doc_.empty()) {
      std::istringstream doc(c_.doc_);
      out << "//\n";
      for (std::string l; std::getline(doc, l);) out << "// " << l << '\n';
    }
    out << "#pragma once\n\n#include <cstddef>\n#include <cstdint>\n#include <utility>\n\n#include \"braid/core/detail/imlp_locals.hpp\"\n#include \"braid/core/prefetch.hpp\"\n";
    for (const auto& include : c_.includes_) out << "#include " << include << '\n';
    out << "\nnamespace braid::imlp_kernels {\n\n";
    out << template_head() << "\nstruct " << c_.name_ << " {\n";
    line(out, 1, "using result_type = " + c_.result_ + ";");
    line(out, 1, "struct shared_args {");
    for (const auto& d : c_.shared_) line(out, 2, d.type + " " + d.name + ";");
    line(out, 1, "};");
    std::string states;
    for (const auto& name : state_names_) states += name + ", ";
    line(out, 1, "// The states a coroutine is in: before its first step, after each Yield, done.");
    line(out, 1, "enum class state : unsigned char { " + states + "finished };");
    line(out, 1, "static constexpr std::size_t stage_count = " + std::to_string(state_names_.size()) + ";");
    out << '\n';

    // Layouts.
    const auto fields = context_fields();
    layout(out, fields, false);
    layout(out, fields, true);
    out << '\n';

    // Plain routine.
    line(out, 1, "// The routine itself: no Yield, no Prefetch.");
    line(out, 1, "static result_type plain(" + parameter_list(true) + ") {");
    for (const auto& d : c_.shared_) line(out, 2, "[[maybe_unused]] const auto& " + d.name + " = imlp_shared." + d.name + ";");
    for (const auto& d : c_.variables_) line(out, 2, d.type + " " + d.name + "{};");
    for (const auto& d : block_variables_) line(out, 2, d.type + " " + d.name + "{};");
    if (has_call_) line(out, 1, "imlp_restart:");
    commented_.clear();
    emit(out, c_.body_, 2, mode::plain);
    line(out, 1, "}");
    out << '\n';

    // start, move_slot.
    line(out, 1, "// Puts a new coroutine into context i, in its first state.");
    line(out, 1, "template <class Slots>");
    line(out, 1, "static void start(Slots& imlp_slots, std::size_t imlp_i" + std::string(c_.args_.empty() ? "" : ", ") +
                     parameter_list(false) + ") {");
    for (const auto& d : c_.args_) line(out, 2, "imlp_slots." + d.name + "(imlp_i) = std::move(" + d.name + ");");
    line(out, 2, "imlp_slots.at(imlp_i) = state::start;");
    line(out, 1, "}");
    line(out, 1, "template <class Slots>");
    line(out, 1, "static void move_slot(Slots& imlp_slots, std::size_t from, std::size_t to) {");
    for (const auto& f : fields) line(out, 2, "imlp_slots." + f.name + "(to) = std::move(imlp_slots." + f.name + "(from));");
    if (has_result()) line(out, 2, "imlp_slots.result(to) = std::move(imlp_slots.result(from));");
    line(out, 2, "imlp_slots.at(to) = imlp_slots.at(from);");
    line(out, 1, "}");
    out << '\n';

    line(out, 1, "// The contexts a step is compiled for: any; one just started (its first step, without the");
    line(out, 1, "// dispatch); or, as its caller promises, one past its first step (the first stage is left");
    line(out, 1, "// out of the caller's loop).");
    line(out, 1, "enum class entry { any, started, resumed };");
    line(out, 1, "// Where a step hands a Return's value (none for a void kernel): by default the context");
    line(out, 1, "// keeps it (slots.result(i)); a scheduler may pass its own sink(slots, i, value...) to take");
    line(out, 1, "// it where it goes, without the round trip through the context.");
    line(out, 1, "struct keep_result {");
    if (has_result()) {
      line(out, 2, "template <class Slots, class ImlpValue>");
      line(out, 2, "void operator()(Slots& imlp_slots, std::size_t imlp_i, ImlpValue&& imlp_value) const {");
      line(out, 3, "imlp_slots.result(imlp_i) = std::forward<ImlpValue>(imlp_value);");
      line(out, 2, "}");
    } else {
      line(out, 2, "template <class Slots>");
      line(out, 2, "void operator()(Slots&, std::size_t) const {}");
    }
    line(out, 1, "};");
    step_function(out, "// One step of context i: runs to its next Yield (false) or to its end (true).",
                  "template <entry Entry = entry::any, class Slots, class Sink = keep_result>", "step", mode::switch_dispatch);
    out << '\n';
    out << "#if defined(__clang__)\n#pragma clang diagnostic push\n#pragma clang diagnostic ignored \"-Wgnu-label-as-value\"\n"
           "#pragma clang diagnostic ignored \"-Wpedantic\"\n#elif defined(__GNUC__)\n#pragma GCC diagnostic push\n"
           "#pragma GCC diagnostic ignored \"-Wpedantic\"\n#endif\n";
    step_function(out, "// The same step, dispatched by computed goto.", "template <class Slots, class Sink = keep_result>", "step_goto",
                  mode::goto_dispatch);
    out << "#if defined(__clang__)\n#pragma clang diagnostic pop\n#elif defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n\n";
    step_function(out, "// The step of a context known to be in state Stage: no dispatch.",
                  "template <state Stage, class Slots, class Sink = keep_result>", "step_at", mode::at_stage);
    out << '\n';

    line(out, 1, "// One round over contexts [0, active): a for loop per stage; done(i) when context i finishes.");
    super_step(out, false);
    line(out, 1, "// One round: a for loop per stage over the contexts that entered the round in it, the");
    line(out, 1, "// static stages without a dispatch, the dynamic ones through the switch.");
    super_step(out, true);
    out << "};\n\n}  // namespace braid::imlp_kernels\n";
    return out.str();
  }

  const coroutine& c_;
  std::string root_;
  std::map<std::string, location> names_;
  std::set<std::string> writable_;
  std::vector<declaration> block_variables_;
  std::vector<std::string> state_names_;
  std::vector<bool> state_static_;
  std::map<const node*, std::size_t> state_of_;
  std::vector<const node*> opaque_;
  bool has_call_ = false;
  std::set<std::string> written_;  // find_written
  std::map<std::string, std::vector<std::string>> sources_;
  std::set<std::pair<std::string, unsigned>> commented_;
};

std::string coroutine::generate(const std::string& source_root) const {
  coroutine located = *this;
  locator{}.resolve(located.body_);
  return emitter(located, source_root).run();
}

}  // namespace braid::imlp
