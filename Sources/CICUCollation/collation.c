#include "CICUCollation.h"
#include <stdlib.h>
#include <unicode/ucol.h>
#include <unicode/uloc.h>
#include <unicode/ustring.h>

sb_collator *sb_collator_open(const char *tag, const char **error_name) {
    UErrorCode status = U_ZERO_ERROR;
    *error_name = NULL;
    char locale[ULOC_FULLNAME_CAPACITY];
    uloc_forLanguageTag(tag, locale, (int32_t)sizeof locale, NULL, &status);
    if (U_FAILURE(status) || status == U_STRING_NOT_TERMINATED_WARNING) {
        *error_name = U_FAILURE(status) ? u_errorName(status) : "U_BUFFER_OVERFLOW_ERROR";
        return NULL;
    }
    status = U_ZERO_ERROR;
    UCollator *collator = ucol_open(locale, &status);
    if (U_FAILURE(status)) {
        *error_name = u_errorName(status);
        if (collator) ucol_close(collator);
        return NULL;
    }
    ucol_setAttribute(collator, UCOL_STRENGTH, UCOL_TERTIARY, &status);
    ucol_setAttribute(collator, UCOL_NORMALIZATION_MODE, UCOL_ON, &status);
    if (U_FAILURE(status)) {
        *error_name = u_errorName(status);
        ucol_close(collator);
        return NULL;
    }
    return (sb_collator *)collator;
}

void sb_collator_close(sb_collator *collator) {
    ucol_close((UCollator *)collator);
}

int32_t sb_collator_sort_key(const sb_collator *collator, const char *text, size_t length, uint8_t *key, int32_t capacity) {
    // UTF-16 takes at most one unit per UTF-8 byte.
    if (length >= INT32_MAX / 2) return 0;
    UChar stack[256];
    UChar *units = length < 256 ? stack : malloc((length + 1) * sizeof(UChar));
    if (!units) return 0;
    UErrorCode status = U_ZERO_ERROR;
    int32_t count = 0;
    u_strFromUTF8(units, (int32_t)length + 1, &count, text, (int32_t)length, &status);
    int32_t written = U_FAILURE(status) ? 0 : ucol_getSortKey((const UCollator *)collator, units, count, key, capacity);
    if (units != stack) free(units);
    return written;
}
