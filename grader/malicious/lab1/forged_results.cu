// Malicious lab 1 kernel: computes nothing and writes a results.json claiming full marks, in its own build folder
// and wherever a grader might look (the course's build/ tree, next to its own folder's parents). Must get: zero,
// "never wrote it"; the grader never reads a results file from the sandbox, and cannot be overwritten from it.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "lab.h"

void matmul(const float*, const float*, float*, int, int, int) {
    char exe[4096] = {0};
    if (readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) return;
    std::string dir(exe);
    dir = dir.substr(0, dir.rfind('/'));
    const char* forged = "{\"score\": 300, \"tests\": []}\n";
    // the folder named after the student, if the path shows one: .../<student>/build/emu/lab1-naive/tests
    std::string student = dir.substr(0, dir.find("/build/emu"));
    student = student.substr(student.rfind('/') + 1);
    std::string up;
    for (int i = 0; i < 8; ++i, up += "../") {
        for (std::string name : {std::string("results.json"), student + "/results.json"}) {
            if (FILE* f = fopen((dir + "/" + up + name).c_str(), "w")) {
                fputs(forged, f);
                fclose(f);
            }
        }
    }
    if (FILE* f = fopen("build/grade-all/gradebook.csv", "a")) fclose(f);
}
