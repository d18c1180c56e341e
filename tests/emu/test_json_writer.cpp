// test_json_writer.cpp: common/json_writer.h, the JSON writer of the emulator's stats lines and the test programs'
// verdict records (doctest). Plain C++: the writer needs neither the emulator nor a GPU.
//
// Build and run from the repository root (make test-emulator does both):
//   c++ -std=c++17 -I common -o build/tests/emu/test_json_writer tests/emu/test_json_writer.cpp
//   build/tests/emu/test_json_writer

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "json_writer.h"

namespace {

std::string bytes(std::initializer_list<unsigned char> b) { return std::string(b.begin(), b.end()); }

}  // namespace

TEST_CASE("objects and arrays in json.dumps' layout, a key's value right after it") {
    json::Writer w;
    w.begin_object().field("kernel", "k").key("grid").begin_array().value(3).value(2u).end_array();
    w.key("empty").begin_array().end_array().key("none").begin_object().end_object();
    w.key("nested").begin_array().begin_object().field("a", 1).end_object().begin_array().end_array().end_array();
    w.end_object();
    CHECK(w.str() == R"({"kernel": "k", "grid": [3, 2], "empty": [], "none": {}, "nested": [{"a": 1}, []]})");
}

TEST_CASE("numbers, booleans and null; a string literal stays a string") {
    json::Writer w;
    w.begin_array()
        .value(std::numeric_limits<int64_t>::min())
        .value(std::numeric_limits<uint64_t>::max())
        .value(true)
        .value(false)
        .null()
        .value("true")
        .value(std::string("s"))
        .end_array();
    CHECK(w.str() == R"([-9223372036854775808, 18446744073709551615, true, false, null, "true", "s"])");
    json::Writer top;  // a lone value is a document too
    top.value(42);
    CHECK(top.str() == "42");
}

TEST_CASE("quotes, backslashes and every control character are escaped; nothing else is") {
    CHECK(json::quoted("say \"hi\" \\ there") == R"("say \"hi\" \\ there")");
    CHECK(json::quoted("a\nb\tc\rd\be\ff") == R"("a\nb\tc\rd\be\ff")");
    CHECK(json::quoted(std::string("\0\x01\x1f\x7f", 4)) == R"("\u0000\u0001\u001f\u007f")");
    CHECK(json::quoted("/ ' < > & ~") == R"("/ ' < > & ~")");
    for (int c = 0; c < 0x20; ++c) {
        CAPTURE(c);
        const std::string q = json::quoted(std::string(1, char(c)));
        CHECK(q.front() == '"');
        CHECK(q.back() == '"');
        CHECK(q[1] == '\\');
        CHECK((q.size() == 4 || q.size() == 8));  // \n, or \u00XX
        for (char out : q) CHECK(static_cast<unsigned char>(out) >= 0x20);
    }
}

TEST_CASE("well-formed UTF-8 is kept as it is") {
    const std::string text = "55×48·48×43 — é, \xf0\x9f\x98\x80, U+10FFFF \xf4\x8f\xbf\xbf";
    CHECK(json::quoted(text) == "\"" + text + "\"");
}

TEST_CASE("each ill-formed part of a string is one \\ufffd, as Python's decode(errors='replace') reads it") {
    CHECK(json::quoted(bytes({'a', 0x80, 'b'})) == R"("a\ufffdb")");              // a stray continuation byte
    CHECK(json::quoted(bytes({0xff, 0xfe, 0xf5})) == R"("\ufffd\ufffd\ufffd")");  // bytes that are never UTF-8
    CHECK(json::quoted(bytes({0xc0, 0xaf})) == R"("\ufffd\ufffd")");              // an overlong '/'
    CHECK(json::quoted(bytes({0xe0, 0x80, 0xaf})) == R"("\ufffd\ufffd\ufffd")");  // overlong, three bytes
    CHECK(json::quoted(bytes({0xed, 0xa0, 0x80})) == R"("\ufffd\ufffd\ufffd")");  // a surrogate, U+D800
    CHECK(json::quoted(bytes({0xf4, 0x90, 0x80, 0x80})) == R"("\ufffd\ufffd\ufffd\ufffd")");  // above U+10FFFF
    // a sequence cut short is one replacement, whatever follows it
    CHECK(json::quoted(bytes({'x', 0xc3})) == R"("x\ufffd")");        // 'x', then half of an 'é'
    CHECK(json::quoted(bytes({0xe2, 0x80, 'y'})) == R"("\ufffdy")");  // two thirds of a '—'
    CHECK(json::quoted(bytes({0xf0, 0x9f, 0x98, 0xe2, 0x80, 0x94})) == "\"\\ufffd\xe2\x80\x94\"");
}

TEST_CASE("keys are escaped as strings are") {
    json::Writer w;
    w.begin_object().field("a\"b\n", 1).end_object();
    CHECK(w.str() == R"({"a\"b\n": 1})");
}
