// langid_cld2.cc - the thin C++ shim over CLD2 (no C API of its own).
#include "filter/langid.h"

#include <cctype>
#include <cstdio>
#include <cstring>  // compact_lang_det.h uses FILE without including it
#include <cld2/public/compact_lang_det.h>
#include <cld2/internal/lang_script.h>

extern "C" void langid_detect(const char *text, size_t n, size_t max_bytes, langid_result *r)
{
    if (max_bytes && n > max_bytes) {
        n = max_bytes;
        // do not cut a UTF-8 sequence in half
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) n--;
    }
    CLD2::Language lang3[3];
    int percent3[3];
    int text_bytes = 0;
    bool reliable = false;
    CLD2::Language top = CLD2::ExtDetectLanguageSummary(text, static_cast<int>(n), true, lang3, percent3,
                                                        &text_bytes, &reliable);
    r->code = CLD2::LanguageCode(top);
    r->score = top == CLD2::UNKNOWN_LANGUAGE ? 0.0 : percent3[0] / 100.0;
    r->reliable = reliable;
}

extern "C" const char *langid_canonical_code(const char *name_or_code)
{
    CLD2::Language lang = CLD2::GetLanguageFromName(name_or_code);
    if (lang == CLD2::UNKNOWN_LANGUAGE) { // names are upper case in CLD2's table
        char upper[64];
        size_t i = 0;
        for (; name_or_code[i] && i + 1 < sizeof upper; i++)
            upper[i] = static_cast<char>(toupper(static_cast<unsigned char>(name_or_code[i])));
        upper[i] = 0;
        lang = CLD2::GetLanguageFromName(upper);
    }
    if (lang == CLD2::UNKNOWN_LANGUAGE) return nullptr;
    return CLD2::LanguageCode(lang);
}

extern "C" int langid_table_size(void) { return CLD2::NUM_LANGUAGES; }

extern "C" bool langid_table_entry(int i, const char **code, const char **name)
{
    CLD2::Language lang = static_cast<CLD2::Language>(i);
    if (lang == CLD2::UNKNOWN_LANGUAGE || CLD2::LanguageRecognizedScript(lang, 0) == CLD2::ULScript_Common)
        return false;
    const char *c = CLD2::LanguageCode(lang);
    if (!c || !*c || std::strncmp(c, "xx-", 3) == 0) return false;
    *code = c;
    *name = CLD2::LanguageName(lang);
    return true;
}
