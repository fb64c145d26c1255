// The calls of include/CRE2.h, each passed to re2::RE2 as it is (RE2's const methods may be
// called from any thread, so one regexp serves every output).
#include "CRE2.h"

#include <new>
#include <re2/re2.h>

static_assert(CRE2_NO_ERROR == re2::RE2::NoError && CRE2_ERROR_PATTERN_TOO_LARGE == re2::RE2::ErrorPatternTooLarge,
              "CRE2.h's error codes are RE2's");

struct cre2_regexp {
    re2::RE2 re;
    cre2_regexp(const re2::StringPiece &pattern, const re2::RE2::Options &options) : re(pattern, options) {}
};

cre2_regexp *cre2_new(const char *pattern, size_t length, cre2_options options) {
    re2::RE2::Options re2_options;
    re2_options.set_max_mem(options.max_mem);
    re2_options.set_log_errors(options.log_errors);
    return new (std::nothrow) cre2_regexp(re2::StringPiece(pattern, length), re2_options);
}

void cre2_delete(cre2_regexp *regexp) { delete regexp; }

int cre2_error_code(const cre2_regexp *regexp) { return regexp->re.error_code(); }

const char *cre2_error(const cre2_regexp *regexp) { return regexp->re.error().c_str(); }

const char *cre2_error_arg(const cre2_regexp *regexp) { return regexp->re.error_arg().c_str(); }

int cre2_group_count(const cre2_regexp *regexp) { return regexp->re.NumberOfCapturingGroups(); }

bool cre2_match(const cre2_regexp *regexp, const char *text, size_t length, size_t start, cre2_span *spans, int count) {
    // RE2 reports a group that matched empty text at a NULL text as not taking part.
    const char *base = text ? text : "";
    re2::StringPiece submatches[CRE2_MAX_SPANS];
    if (count > CRE2_MAX_SPANS) count = CRE2_MAX_SPANS;
    if (count < 0) count = 0;
    if (!regexp->re.Match(re2::StringPiece(base, length), start, length, re2::RE2::UNANCHORED, submatches, count)) return false;
    for (int i = 0; i < count; i++) {
        bool took_part = submatches[i].data() != NULL;
        spans[i].start = took_part ? submatches[i].data() - base : -1;
        spans[i].end = took_part ? spans[i].start + (ptrdiff_t)submatches[i].size() : -1;
    }
    return true;
}
