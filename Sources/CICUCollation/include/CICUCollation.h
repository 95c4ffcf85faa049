#ifndef SWITCHBOARD_CICUCOLLATION_H
#define SWITCHBOARD_CICUCOLLATION_H
#include <stddef.h>
#include <stdint.h>

/// An ICU collator (UCollator), opaque to Swift. ICU's headers rename every function by its version
/// (ucol_open_72), which Swift cannot follow: these wrappers give it fixed names.
typedef struct sb_collator sb_collator;

/// The collator of the BCP 47 tag `tag` (NUL-terminated; `de-u-co-phonebk` picks its collation type), at
/// tertiary strength with normalization on (a decomposed name sorts as its composed form). A language
/// ICU has no tailoring for gets the root collation. NULL when ICU fails, with its error name (a static
/// string) in `*error_name`.
sb_collator *sb_collator_open(const char *tag, const char **error_name);

void sb_collator_close(sb_collator *collator);

/// Writes the sort key of `text` (UTF-8, `length` bytes) into `key` (`capacity` bytes): keys compare
/// as the texts collate, byte by byte (memcmp). Returns the key's length (its final NUL included), which
/// may exceed `capacity`: then nothing usable was written, and a call with that capacity writes it.
/// Returns 0 when the text is not UTF-8 or ICU fails.
int32_t sb_collator_sort_key(const sb_collator *collator, const char *text, size_t length, uint8_t *key, int32_t capacity);

#endif
