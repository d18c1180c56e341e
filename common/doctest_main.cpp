// doctest_main.cpp — the one main() of every test binary, compiled once and linked into each.
//
// For a person, the tests report in the course's own words (CourseReporter; --reporters=console for doctest's).
// For the grader there is also a verdict channel that the code under test cannot write to: when CUDAGRADE_VERDICTS
// names a file, main() reads a secret from its standard input before any test (and so any of the student's code)
// runs, and every test case that ends leaves one JSON line in that file carrying the secret (its fields: the
// record() of VerdictListener, below):
//   {"kind": "test-case", "token": "...", "name": "...", "suite": "...", "status": "failed", "messages": [...],
//    "failed_checks": ["correctness"], "findings": [{"kind": "race", "file": "...", "line": ..., "message": "..."}],
//    "findings_left_out": 0, "out_of_memory": false}
// Text the student's code prints can imitate doctest's report, never this record; the grader believes only it.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <regex>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"
#include "json_writer.h"

namespace {

int g_verdict_fd = -1;
std::string g_token;
constexpr size_t kMaxMessageBytes = 4096;  // per message; the grader caps a test's output again
constexpr size_t kMaxFindings = 32;        // per record: a record stays small whatever the kernel does

// At most kMaxMessageBytes of `s`, cut between two characters (a UTF-8 continuation byte is 10xxxxxx).
std::string capped(const std::string& s) {
    if (s.size() <= kMaxMessageBytes) return s;
    size_t n = kMaxMessageBytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
    return s.substr(0, n) + " [... cut]";
}

// What a failed check says: its CHECK_MESSAGE text (the course's own sentence), and with `captured` the CAPTURE
// values after it, "(M := 55, ...)".
std::string failure_text(const doctest::AssertData& a, bool captured_too) {
    std::vector<std::string> said, captured;
    const doctest::IContextScope* const* contexts = doctest::IReporter::get_active_contexts();
    for (int i = 0; i < doctest::IReporter::get_num_active_contexts(); ++i) {
        std::ostringstream s;
        contexts[i]->stringify(&s);
        (s.str().find(" := ") != std::string::npos ? captured : said).push_back(s.str());
    }
    std::string text;
    for (const std::string& s : said) text += (text.empty() ? "" : "\n") + s;
    if (text.empty()) text = std::string("check failed: ") + a.m_expr;
    if (captured_too && !captured.empty()) {
        text += "\n  (";
        for (size_t i = 0; i < captured.size(); ++i) text += (i ? ", " : "") + captured[i];
        text += ")";
    }
    if (a.m_threw) text += std::string("\nexception: ") + a.m_exception.c_str();
    return text;
}

// Writes one record per test case to the verdict file; silent when there is none (a student's `make labN`).
struct VerdictListener : doctest::IReporter {
    explicit VerdictListener(const doctest::ContextOptions&) {}

    std::string name_, suite_;
    std::vector<std::string> messages_;
    bool out_of_memory_ = false;  // the case ended in std::bad_alloc

    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    // The verdict record of the test case that ended, one JSON line; its fields, the grader's to read:
    //   kind               "test-case"
    //   token              the secret read from standard input (a line without it was not written here)
    //   name, suite        the test case's name and its TEST_SUITE ("" for none)
    //   status             "passed" or "failed"
    //   messages           each failed check's text as the student reads it, CAPTUREd values after it
    //   failed_checks      the harness's checks that failed (Verdict::check, harness.h), in order, each once:
    //                      "correctness", "reads", "written once", "coalescing", "tensor cores", "memory safety" or
    //                      "host flow";
    //                      [] when none did (also when the case failed another way: an exception)
    //   findings           what the emulator found in the case's runs, each once, in the order found, the first
    //                      kMaxFindings: {"kind", "file", "line", "message"} (harness.h's Finding: the kind as the
    //                      emulator spells it, "race", "out-of-bounds", "uninitialised", ...; file "" and line 0 when
    //                      unknown). Listed whether or not the case failed: only the memory-safety checks fail
    //                      because of a finding; the others add findings to a failure of their own. [] where no
    //                      emulator runs (a GPU build)
    //   findings_left_out  how many findings there were beyond those listed
    //   out_of_memory      true when the case ended in std::bad_alloc (what a sandbox's memory limit looks like to
    //                      the program), judged by the exception's type, not its text
    // Every message is cut at kMaxMessageBytes.
    std::string record(bool passed) const {
        json::Writer w;
        w.begin_object()
            .field("kind", "test-case")
            .field("token", g_token)
            .field("name", name_)
            .field("suite", suite_)
            .field("status", passed ? "passed" : "failed");
        w.key("messages").begin_array();
        for (const std::string& m : messages_) w.value(m);
        w.end_array();
        const CaseRecord& c = case_record();
        w.key("failed_checks").begin_array();
        for (const std::string& check : c.failed_checks) w.value(check);
        w.end_array();
        w.key("findings").begin_array();
        const size_t listed = std::min(c.findings.size(), kMaxFindings);
        for (size_t i = 0; i < listed; ++i) {
            const Finding& f = c.findings[i];
            w.begin_object()
                .field("kind", f.kind)
                .field("file", f.file)
                .field("line", f.line)
                .field("message", capped(f.message))
                .end_object();
        }
        w.end_array().field("findings_left_out", c.findings.size() - listed).field("out_of_memory", out_of_memory_);
        w.end_object();
        return w.str() + "\n";
    }

    void test_case_start(const doctest::TestCaseData& tc) override {
        name_ = tc.m_name;
        suite_ = tc.m_test_suite ? tc.m_test_suite : "";
        messages_.clear();
        out_of_memory_ = false;
        case_record() = CaseRecord();
    }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
        if (g_verdict_fd < 0) return;
        const std::string line = record(stats.testCaseSuccess);
        for (size_t done = 0; done < line.size();) {
            ssize_t n = ::write(g_verdict_fd, line.data() + done, line.size() - done);
            if (n <= 0) break;
            done += size_t(n);
        }
    }
    void test_case_exception(const doctest::TestCaseException& e) override {
        messages_.push_back(capped(std::string("exception: ") + e.error_string.c_str()));
        // doctest calls this from its catch (...): the exception that ended the case is still the one being handled
        try {
            if (std::exception_ptr ended = std::current_exception()) std::rethrow_exception(ended);
        } catch (const std::bad_alloc&) {
            out_of_memory_ = true;
        } catch (...) {
        }
    }
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData& a) override {
        if (a.m_failed) messages_.push_back(capped(failure_text(a, true)));
    }
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("verdicts", 1, VerdictListener);

// The report a student reads (`make labN`; doctest's own reporters stay available with --reporters=console). One
// line per test case, and under a failed one the course's sentences only. An emulator finding already shown under
// an earlier test is not repeated in full, and the run ends with one summary line.
struct CourseReporter : doctest::IReporter {
    explicit CourseReporter(const doctest::ContextOptions& options) : out_(*options.cout) {}

    std::ostream& out_;
    std::string suite_, name_;
    std::vector<std::string> failures_;
    std::set<std::string> shown_;  // emulator findings printed so far, without their counts
    // per finding (finding_key): its kind, and how many failed tests it was found in
    std::map<std::string, std::pair<std::string, int>> tests_with_;
    int passed_ = 0, failed_ = 0;
    bool correctness_failed_ = false;        // a test of the suite "correctness" failed
    bool passed_after_correctness_ = false;  // a test of another suite passed

    // A finding is named by its kind and the first source location it gives: the same mistake found again on
    // another problem size (with other counts, threads or phases) is not printed in full again.
    static std::string finding_key(const std::string& line) {
        static const std::regex location(R"([^\s'"(]+\.(cu|cuh|h|hpp|cpp|cc):\d+)");
        std::smatch m;
        const std::string kind = line.substr(0, line.find(':'));
        return std::regex_search(line, m, location) ? kind + " at " + m.str() : line;
    }

    // An emulator finding (an indented line) in `failure` that has not been printed yet.
    bool has_new_finding(const std::string& failure) const {
        std::istringstream lines(failure);
        for (std::string line; std::getline(lines, line);) {
            const size_t indent = line.find_first_not_of(' ');
            if (indent == 0 || indent == std::string::npos) continue;
            std::string body = line.substr(indent);
            const std::string also = "the emulator also found ";
            if (body.rfind(also, 0) == 0) body = body.substr(also.size());
            if (body.rfind("... and ", 0) != 0 && !shown_.count(finding_key(body))) return true;
        }
        return false;
    }

    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& stats) override {
        out_ << (passed_ + failed_) << " tests: " << passed_ << " passed, " << failed_ << " failed";
        if (stats.numTestCases > passed_ + failed_)
            out_ << ", " << (stats.numTestCases - passed_ - failed_) << " not run";
        out_ << (failed_ ? "" : " — all pass") << "\n";
        if (correctness_failed_ && passed_after_correctness_)  // a pass there earns nothing yet (course/scoring.py)
            out_ << "(a passing traffic or memory safety test earns its points only once every correctness test "
                    "passes)\n";
        for (const auto& [key, kind_count] : tests_with_)  // a finding repeated across tests: said once, counted here
            if (kind_count.second > 1) out_ << "the " << key << " failed " << kind_count.second << " tests\n";
    }
    void test_case_start(const doctest::TestCaseData& tc) override {
        const std::string suite = tc.m_test_suite ? tc.m_test_suite : "";
        if (suite != suite_ || (passed_ + failed_) == 0) out_ << suite << "\n";
        suite_ = suite;
        name_ = tc.m_name;
        failures_.clear();
    }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
        const bool ok = stats.testCaseSuccess && failures_.empty();
        (ok ? passed_ : failed_)++;
        out_ << "  " << (ok ? "pass  " : "FAIL  ") << name_;
        if (!ok && suite_ == "correctness") correctness_failed_ = true;
        if (ok && suite_ != "correctness") passed_after_correctness_ = true;
        // a check that is only judged for a correct kernel (harness.cpp) failed because correctness did: one line.
        // Where every correctness test passed, the kernel is wrong on this test's own shape, which is said in full.
        static const std::string not_judged = " only judged for a correct kernel, and this one is not: ";
        if (!failures_.empty() && failures_.front().find(not_judged) != std::string::npos && correctness_failed_) {
            out_ << " — not judged: the kernel's results are wrong (see correctness)\n";
            out_.flush();
            return;
        }
        std::vector<std::string> said;
        std::set<std::string> found;       // the findings of this test, new or shown before
        bool only_again = true;            // every line said is a finding shown under an earlier test
        std::vector<std::string> again;    // the kinds of those
        std::set<std::string> said_again;  // their keys: one shown before is named once per test
        std::set<std::string> shown_here;  // the keys first shown in this test: another finding of one is not news
        int more = 0;  // later failures of this test that show nothing new (another size with the same fault)
        for (const std::string& f : failures_) {
            if (&f != &failures_.front() && !has_new_finding(f)) {
                ++more;
                continue;
            }
            std::istringstream lines(f);
            for (std::string line; std::getline(lines, line);) {
                size_t indent = line.find_first_not_of(' ');
                if (indent == std::string::npos) continue;
                std::string body = line.substr(indent);
                // an indented line is an emulator finding: "[the emulator also found ]race: ..."; one shown before is
                // only named, at the end of the line before it
                if (indent > 0 && body.rfind("... and ", 0) != 0) {
                    const std::string also = "the emulator also found ";
                    const std::string finding = body.rfind(also, 0) == 0 ? body.substr(also.size()) : body;
                    if (found.insert(finding_key(finding)).second) {
                        auto& entry = tests_with_[finding_key(finding)];
                        entry.first = finding.substr(0, finding.find(':'));
                        ++entry.second;
                    }
                    if (shown_here.count(finding_key(finding))) continue;
                    if (!shown_.insert(finding_key(finding)).second) {
                        if (!said_again.insert(finding_key(finding)).second) continue;
                        const std::string kind = finding.substr(0, finding.find(':'));
                        const bool new_kind = std::find(again.begin(), again.end(), kind) == again.end();
                        again.push_back(kind);
                        const std::string tail = " shown above again";
                        if (said.empty()) {
                            said.push_back("the " + kind + tail);
                        } else if (said.back().size() > tail.size() &&
                                   said.back().compare(said.back().size() - tail.size(), tail.size(), tail) == 0) {
                            // one list per line: "the race and the uninitialised shown above again"
                            if (new_kind) said.back().insert(said.back().size() - tail.size(), " and the " + kind);
                        } else {
                            said.back() += (said.back().back() == ':' ? " " : "; ") + ("the " + kind + tail);
                        }
                        continue;
                    }
                    shown_here.insert(finding_key(finding));
                }
                // a line that only introduces findings ("1×1·1×1 seeded random (seed 10):") says nothing itself
                if (indent > 0 || body.back() != ':') only_again = false;
                said.push_back(body);
            }
        }
        if (only_again && !again.empty()) {  // nothing new: one line, the count comes at the end
            std::string kinds;
            for (size_t i = 0; i < again.size(); ++i)
                if (std::find(again.begin(), again.begin() + i, again[i]) == again.begin() + i)
                    kinds += (kinds.empty() ? "" : " and the ") + again[i];
            out_ << " — the " << kinds << " shown above\n";
            out_.flush();
            return;
        }
        out_ << "\n";
        if (more && !said.empty())
            said.back() += more == 1 ? " (one more size fails the same way)"
                                     : " (" + std::to_string(more) + " more sizes fail the same way)";
        for (const std::string& line : said) out_ << "        " << line << "\n";
        out_.flush();
    }
    void test_case_exception(const doctest::TestCaseException& e) override {
        failures_.push_back(std::string("stopped by an exception: ") + e.error_string.c_str());
    }
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData& a) override {
        if (a.m_failed) failures_.push_back(failure_text(a, false));
    }
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_REPORTER("course", 1, CourseReporter);

// Before any test runs: the secret is read from standard input, which is then closed (nothing is left to read),
// and the verdict file is opened.
void open_verdict_channel() {
    const char* path = std::getenv("CUDAGRADE_VERDICTS");
    if (!path) return;
    char c;
    while (g_token.size() < 128 && ::read(0, &c, 1) == 1 && c != '\n') g_token += c;
    ::close(0);
    if (!g_token.empty()) g_verdict_fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    ::unsetenv("CUDAGRADE_VERDICTS");
}

}  // namespace

int main(int argc, char** argv) {
    open_verdict_channel();
    // The emulator's findings reach the report through the checks' messages, under the test they belong to: not also
    // on stderr, where they would cut into the report.
    ::setenv("CUDAEMU_QUIET", "1", 0);
    doctest::Context context;
    context.setOption("reporters", "course");  // unless the command line names others
    context.setOption("no-version", true);
    context.applyCommandLine(argc, argv);
    return context.run();
}
