// RE2 (linear-time regular expressions, re2::RE2) through a C interface Swift can import.
// Each function is one RE2 call; the choices (options, what an error means) are made in Swift
// (Sources/ScannerCore/RE2Pattern.swift).
#ifndef CRE2_H
#define CRE2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled regular expression (an re2::RE2).
typedef struct cre2_regexp cre2_regexp;

/// The RE2::Options that differ from RE2's defaults here.
typedef struct {
    /// RE2::Options::max_mem: bytes for the compiled program and its DFA caches.
    int64_t max_mem;
    /// RE2::Options::log_errors: whether RE2 prints errors to stderr.
    bool log_errors;
} cre2_options;

/// The most spans cre2_match fills: the whole match and groups 1 to 9.
#define CRE2_MAX_SPANS 10

/// A match or a group in it, as byte offsets into the text; start and end are -1 for a group
/// that did not take part.
typedef struct {
    ptrdiff_t start;
    ptrdiff_t end;
} cre2_span;

/// Compiles `pattern` (UTF-8, `length` bytes). NULL only when memory ran out; a pattern RE2
/// rejects gives a regexp whose cre2_error_code is not 0. Free it with cre2_delete.
cre2_regexp *cre2_new(const char *pattern, size_t length, cre2_options options);
void cre2_delete(cre2_regexp *regexp);

/// RE2::ErrorCode values that Swift tells apart (re2_shim.cc checks them against RE2's).
enum { CRE2_NO_ERROR = 0, CRE2_ERROR_PATTERN_TOO_LARGE = 15 };

/// RE2::error_code (CRE2_NO_ERROR when the pattern compiled), RE2::error and RE2::error_arg (the
/// part of the pattern at fault); the strings live as long as the regexp.
int cre2_error_code(const cre2_regexp *regexp);
const char *cre2_error(const cre2_regexp *regexp);
const char *cre2_error_arg(const cre2_regexp *regexp);

/// RE2::NumberOfCapturingGroups.
int cre2_group_count(const cre2_regexp *regexp);

/// RE2::Match, unanchored, from byte `start` to the end of `text` (the bytes before `start` still
/// count for ^ and \b). Fills up to `count` (at most CRE2_MAX_SPANS) spans: the match, then groups.
bool cre2_match(const cre2_regexp *regexp, const char *text, size_t length, size_t start, cre2_span *spans, int count);

#ifdef __cplusplus
}
#endif

#endif
