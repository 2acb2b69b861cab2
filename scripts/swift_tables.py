"""What scripts/generate-*-mappings.py share: Swift array literals and bitsets."""


def table(numbers):
    """The lines of a Swift array literal's elements, in hexadecimal: twelve to a line, fewer
    for wide numbers, so lines stay within swift-format's 140 columns."""
    per_line = min(12, 128 // (len("0x%X, " % max(numbers))))
    return "\n".join(
        "        " + ", ".join("0x%X" % n for n in numbers[start:start + per_line]) + ","
        for start in range(0, len(numbers), per_line))


def bmp_bitset(values):
    """The values below U+10000 as 1,024 words of 64 bits: bit `c & 63` of word `c >> 6`."""
    words = [0] * (0x10000 // 64)
    for value in values:
        if value < 0x10000:
            words[value >> 6] |= 1 << (value & 63)
    return words
