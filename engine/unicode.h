/* engine-private: UTF-8 and the Unicode classes the tokenizers need.
 * Not part of the public engine API (engine/engine.h). */
#ifndef FC_ENGINE_UNICODE_H
#define FC_ENGINE_UNICODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct eng_uc_range {
    uint32_t lo, hi; /* inclusive */
} eng_uc_range;

/* Generated tables (engine/unicode_tables.c), sorted and disjoint. */
extern const eng_uc_range eng_uc_letters[], eng_uc_numbers[], eng_uc_spaces[];
extern const size_t eng_uc_letters_len, eng_uc_numbers_len, eng_uc_spaces_len;

enum eng_uc_class { UC_OTHER = 0, UC_LETTER, UC_NUMBER, UC_SPACE };

/* Class of a codepoint: letter (\p{L}), number (\p{N}), whitespace (\s), other. */
int eng_uc_class(uint32_t cp);

/* Decodes the UTF-8 sequence at s[0..len) into *cp and returns its length
 * (1..4). Malformed or truncated input decodes as one byte (cp = the byte
 * value | ENG_UC_RAW_BYTE) so every input byte is consumed exactly once. */
#define ENG_UC_RAW_BYTE 0x80000000u
size_t eng_utf8_decode(const char *s, size_t len, uint32_t *cp);
/* Length of a UTF-8 sequence from its lead byte (1 for invalid leads). */
size_t eng_utf8_len(uint8_t lead);
/* Encodes cp (< 0x110000) into out (4 bytes room); returns the length. */
size_t eng_utf8_encode(uint32_t cp, char *out);

/* GPT-2's byte-level map: each byte to a printable codepoint, so byte-level
 * BPE vocabularies never contain raw spaces or control bytes. */
uint32_t eng_byte_to_cp(uint8_t b);
/* The inverse; -1 for codepoints that are not in the map. */
int eng_cp_to_byte(uint32_t cp);

#endif
