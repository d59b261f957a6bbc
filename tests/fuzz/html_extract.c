/* html_extract.c - fuzz target: any bytes through charset detection, the
 * HTML walk and main-content extraction; the text must be valid UTF-8. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "ingest/html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static html_result r;
    /* the first byte picks the mode and the header charset (none, a
     * single-byte one, UTF-16 without a BOM, x-user-defined) */
    static const char *const header_charsets[] = {NULL, "windows-1251", "utf-16le", "x-user-defined"};
    extract_mode mode = size && (data[0] & 1) ? EXTRACT_FULL : EXTRACT_MAIN;
    const char *declared = size ? header_charsets[(data[0] >> 1) & 3] : NULL;
    html_extract((const char *)data, size, declared, mode, &r);
    if (!utf8_valid(r.text.data ? r.text.data : "", r.text.len)) abort();
    if (!utf8_valid(r.title.data ? r.title.data : "", r.title.len)) abort();
    if (r.text.len && memchr(r.text.data, 0, r.text.len)) abort();
    return 0;
}
