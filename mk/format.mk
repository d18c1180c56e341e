# mk/format.mk: one layout for the C++ and CUDA sources, written in .clang-format (Google's style, 4-space
# indentation, 120 columns).
#
#   make format         rewrite the sources in that layout (clang-format, Debian package clang-format)
#   make test-format    check that they are in it (part of make test)
#
# Folders with a .clang-format of their own that disables it are left as they are: the emulator's test programs are
# quoted by line, and the external corpus is others' code. (The grader's catalogue holds patches, not sources.)

CLANG_FORMAT ?= clang-format
FORMAT_SOURCES = $(shell find common labs grader tools tests -type f \( -name '*.cpp' -o -name '*.cu' \
                   -o -name '*.cuh' -o -name '*.h' \) -not -path '*/build/*' | sort)

.PHONY: format test-format

format:
	@$(CLANG_FORMAT) -i $(FORMAT_SOURCES)

test-format:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "test-format: $(CLANG_FORMAT) not found (tools/install-deps all)" >&2; exit 1; }
	@$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SOURCES) 2>&1 | head -20; \
	  $(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SOURCES) >/dev/null 2>&1 && \
	  echo "test-format: $(words $(FORMAT_SOURCES)) sources are laid out as .clang-format says"

TESTS += test-format
