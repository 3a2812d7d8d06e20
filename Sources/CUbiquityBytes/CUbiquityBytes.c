#include "CUbiquityBytes.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline int needs_look(uint8_t byte) {
    return byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2;
}

size_t ubq_plain_run(const uint8_t *bytes, size_t count, uint8_t *seen) {
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
    while (index < count && !needs_look(bytes[index])) {
        high |= bytes[index] & 0x80;
        index += 1;
    }
    *seen |= high;
    return index;
}
