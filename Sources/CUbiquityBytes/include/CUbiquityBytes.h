// CUbiquityBytes — byte work that Swift 6.3 does not vectorise or inline: its SIMD16<UInt8>
// compares compile to a loop over single bytes here (a test took ninety times longer than
// eight-byte words), so the readers' hottest loop is written with SSE2, which every x86-64 has.
//
// Owns: ubq_plain_run, the run of JSON string text that needs no closer look, and its test for
//   one byte (ubq_needs_look); ubq_copy, the copy of the short runs an answer's rows and the
//   path table's names are made of. All are static inline here, not compiled in a file of their
//   own, so that Swift inlines them: called once per string (a 100k-item answer has 200k), the
//   call and the flag passed back through memory were a tenth of checking the items.
// Must not: know JSON beyond which bytes end a plain run; hold state.
// Depends on: the C compiler's intrinsics only.
#ifndef C_UBIQUITY_BYTES_H
#define C_UBIQUITY_BYTES_H

#include <stddef.h>
#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// One byte of ubq_plain_run's test.
static inline int ubq_needs_look(uint8_t byte) {
    return byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2;
}

/// How many of the `count` bytes at `bytes` come before the first that may need a closer look in
/// a JSON string: below 0x20, `"`, `\`, or 0xE2 (which starts U+2028 and U+2029). Sets the high
/// bit of `*seen` when any byte of that run is not ASCII, and leaves it as it was otherwise.
static inline size_t ubq_plain_run(const uint8_t *bytes, size_t count, uint8_t *seen) {
    size_t index = 0;
    uint8_t high = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8(0x22), backslash = _mm_set1_epi8(0x5C);
    const __m128i e2 = _mm_set1_epi8((char)0xE2), control = _mm_set1_epi8(0x1F);
    __m128i all = _mm_setzero_si128();
    while (index + 16 <= count) {
        __m128i block = _mm_loadu_si128((const __m128i *)(bytes + index));
        __m128i look = _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash));
        look = _mm_or_si128(look, _mm_cmpeq_epi8(block, e2));
        // Unsigned `block <= 0x1F` is `max(block, 0x1F) == 0x1F`.
        look = _mm_or_si128(look, _mm_cmpeq_epi8(_mm_max_epu8(block, control), control));
        int mask = _mm_movemask_epi8(look);
        if (mask != 0) {
            // The bytes before the first to look at are part of the run.
            int plain = __builtin_ctz((unsigned)mask);
            int nonASCII = _mm_movemask_epi8(block) & ((1 << plain) - 1);
            if (nonASCII != 0 || _mm_movemask_epi8(all) != 0) high = 0x80;
            *seen |= high;
            return index + (size_t)plain;
        }
        all = _mm_or_si128(all, block);
        index += 16;
    }
    if (_mm_movemask_epi8(all) != 0) high = 0x80;
#endif
    while (index < count && !ubq_needs_look(bytes[index])) {
        high |= bytes[index] & 0x80;
        index += 1;
    }
    *seen |= high;
    return index;
}

/// Copies `count` bytes from `source` to `destination` (apart, not overlapping) with a few loads
/// and stores in place, where a `memmove` is a call: an answer's row is a few copies of 2 to 100
/// bytes (its names, its directory's path), and at 10k rows those calls were a third of writing
/// them. Runs of 16 bytes or more go 16 at a time, the last 16 overlapping the ones before;
/// shorter runs as two overlapping words; long runs (over 256 bytes) by `memcpy`.
static inline void ubq_copy(uint8_t *destination, const uint8_t *source, size_t count) {
    if (count >= 16) {
#if defined(__SSE2__)
        if (count <= 256) {
            for (size_t at = 0; at + 16 < count; at += 16) {
                _mm_storeu_si128((__m128i *)(destination + at), _mm_loadu_si128((const __m128i *)(source + at)));
            }
            _mm_storeu_si128((__m128i *)(destination + count - 16), _mm_loadu_si128((const __m128i *)(source + count - 16)));
            return;
        }
#endif
        __builtin_memcpy(destination, source, count);
        return;
    }
    if (count >= 8) {
        uint64_t first, last;
        __builtin_memcpy(&first, source, 8);
        __builtin_memcpy(&last, source + count - 8, 8);
        __builtin_memcpy(destination, &first, 8);
        __builtin_memcpy(destination + count - 8, &last, 8);
    } else if (count >= 4) {
        uint32_t first, last;
        __builtin_memcpy(&first, source, 4);
        __builtin_memcpy(&last, source + count - 4, 4);
        __builtin_memcpy(destination, &first, 4);
        __builtin_memcpy(destination + count - 4, &last, 4);
    } else if (count > 0) {
        // 1 to 3 bytes: the first, the middle and the last cover them.
        destination[0] = source[0];
        destination[count / 2] = source[count / 2];
        destination[count - 1] = source[count - 1];
    }
}

#endif
