// json_writer.h — the one way the course's C++ writes JSON for a machine: the emulator's CUDAEMU_STATS lines
// (common/emu/report.cpp), the test programs' verdict records (doctest_main.cpp) and the tools' measurements
// (tools/lessons/measure.cpp, gemm_bench --info). Header-only, plain C++17, so that nvcc and the emulator's compiler
// both take it.
//
//   json::Writer w;
//   w.begin_object().key("kernel").value(name).key("grid").begin_array().value(4).value(2).end_array().end_object();
//   w.str()  ->  {"kernel": "matmul_tiled_kernel", "grid": [4, 2]}
//
// The layout is Python's json.dumps default (", " between items, ": " after a key), on one line. Strings come out
// as valid JSON whatever bytes they hold: '"' and '\' escaped, every control character escaped (\n, \t, \r, \b, \f
// by name, the others and DEL as \u00XX), well-formed UTF-8 kept as it is, and each ill-formed part of a string
// (a stray continuation byte, a cut or overlong sequence, a surrogate, a byte that is never UTF-8) written as one
// \ufffd, the replacement character, as Python's bytes.decode("utf-8", errors="replace") reads it. A message cut
// in the middle of a character therefore still makes a record a parser accepts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace json {

namespace detail {

// The length of the well-formed UTF-8 sequence at s[i] (Unicode's table 3-7), or 0 if there is none; then
// `bad` is the length of its ill-formed part (the longest start of a sequence, at least 1 byte).
inline size_t utf8_sequence(std::string_view s, size_t i, size_t& bad) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) return 1;
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range; later ones are always 80..bf
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;  // not overlong
        if (c == 0xed) hi = 0x9f;  // not a surrogate, U+D800..U+DFFF
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;  // not overlong
        if (c == 0xf4) hi = 0x8f;  // at most U+10FFFF
    } else {
        bad = 1;  // 80..c1 (a continuation byte, or an overlong two-byte lead) and f5..ff
        return 0;
    }
    for (size_t k = 1; k < n; ++k) {
        const unsigned char d = i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
        if (i + k >= s.size() || d < (k == 1 ? lo : 0x80) || d > (k == 1 ? hi : 0xbf)) {
            bad = k;
            return 0;
        }
    }
    return n;
}

}  // namespace detail

// Appends `s` to `out` as a JSON string, quotes included.
inline void append_quoted(std::string& out, std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f') {
            out += '\\';
            out += c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : c == '\b' ? 'b' : 'f';
        } else if (c < 0x20 || c == 0x7f) {
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else if (c >= 0x80) {
            size_t bad = 0;
            const size_t n = detail::utf8_sequence(s, i, bad);
            if (n)
                out.append(s.data() + i, n);
            else
                out += "\\ufffd";
            i += n ? n : bad;
            continue;
        } else {
            out += char(c);
        }
        ++i;
    }
    out += '"';
}

inline std::string quoted(std::string_view s) {
    std::string out;
    append_quoted(out, s);
    return out;
}

// Builds one JSON value in a string, item by item. Each begin_ has its end_; a member of an object is key() then
// its value.
class Writer {
  public:
    Writer& begin_object() { return open('{'); }
    Writer& end_object() { return close('}'); }
    Writer& begin_array() { return open('['); }
    Writer& end_array() { return close(']'); }

    Writer& key(std::string_view k) {
        separate();
        append_quoted(out_, k);
        out_ += ": ";
        after_key_ = true;
        return *this;
    }

    Writer& value(std::string_view s) {
        separate();
        append_quoted(out_, s);
        return *this;
    }
    // without these, a string literal would convert to bool before string_view
    Writer& value(const char* s) { return value(std::string_view(s)); }
    Writer& value(const std::string& s) { return value(std::string_view(s)); }
    Writer& value(bool b) { return literal(b ? "true" : "false"); }
    template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    Writer& value(T n) {
        return literal(std::to_string(n));
    }
    Writer& null() { return literal("null"); }

    // key(k).value(v), the common case
    template <typename T>
    Writer& field(std::string_view k, const T& v) {
        return key(k).value(v);
    }

    const std::string& str() const { return out_; }

  private:
    Writer& open(char bracket) {
        separate();
        out_ += bracket;
        first_.push_back(true);
        return *this;
    }
    Writer& close(char bracket) {
        out_ += bracket;
        first_.pop_back();
        return *this;
    }
    Writer& literal(std::string_view text) {
        separate();
        out_ += text;
        return *this;
    }
    // ", " before every item of an object or array but its first; nothing between a key and its value
    void separate() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (first_.empty()) return;
        if (!first_.back()) out_ += ", ";
        first_.back() = false;
    }

    std::string out_;
    std::vector<bool> first_;  // per open object or array: nothing written in it yet
    bool after_key_ = false;
};

}  // namespace json
