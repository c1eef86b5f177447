/* UTF-8 decoding and Unicode classes for the tokenizers. */
#include "engine/unicode.h"

static bool in_ranges(const eng_uc_range *r, size_t n, uint32_t cp) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < r[mid].lo) hi = mid;
        else if (cp > r[mid].hi) lo = mid + 1;
        else return true;
    }
    return false;
}

int eng_uc_class(uint32_t cp) {
    if (cp & ENG_UC_RAW_BYTE) return UC_OTHER;
    if (cp < 0x80) { /* the common case, without a search */
        if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') return UC_LETTER;
        if (cp >= '0' && cp <= '9') return UC_NUMBER;
        if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D)) return UC_SPACE;
        return UC_OTHER;
    }
    if (in_ranges(eng_uc_letters, eng_uc_letters_len, cp)) return UC_LETTER;
    if (in_ranges(eng_uc_numbers, eng_uc_numbers_len, cp)) return UC_NUMBER;
    if (in_ranges(eng_uc_spaces, eng_uc_spaces_len, cp)) return UC_SPACE;
    return UC_OTHER;
}

size_t eng_utf8_len(uint8_t lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 1;
}

size_t eng_utf8_decode(const char *s, size_t len, uint32_t *cp) {
    const uint8_t *u = (const uint8_t *)s;
    size_t n = eng_utf8_len(u[0]);
    if (n == 1 || n > len) {
        *cp = u[0] < 0x80 ? u[0] : (u[0] | ENG_UC_RAW_BYTE);
        return 1;
    }
    static const uint8_t lead_mask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    uint32_t c = u[0] & lead_mask[n];
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80) {
            *cp = u[0] | ENG_UC_RAW_BYTE;
            return 1;
        }
        c = (c << 6) | (u[i] & 0x3F);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min_cp[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) { /* overlong or surrogate */
        *cp = u[0] | ENG_UC_RAW_BYTE;
        return 1;
    }
    *cp = c;
    return n;
}

size_t eng_utf8_encode(uint32_t cp, char *out) {
    uint8_t *o = (uint8_t *)out;
    if (cp < 0x80) {
        o[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (uint8_t)(0xC0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xE0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | (cp >> 18));
    o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* GPT-2 keeps the printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') as
 * themselves and maps the remaining 68 bytes, in order, to U+0100 onwards. */
static bool byte_is_printable(uint32_t b) {
    return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

uint32_t eng_byte_to_cp(uint8_t b) {
    if (byte_is_printable(b)) return b;
    uint32_t k = 0; /* rank of b among the non-printable bytes */
    for (uint32_t x = 0; x < b; x++) k += !byte_is_printable(x);
    return 0x100 + k;
}

int eng_cp_to_byte(uint32_t cp) {
    if (cp < 0x100) return byte_is_printable(cp) ? (int)cp : -1;
    if (cp >= 0x100 + 68) return -1;
    uint32_t k = cp - 0x100;
    for (uint32_t x = 0; x < 256; x++)
        if (!byte_is_printable(x) && k-- == 0) return (int)x;
    return -1;
}
