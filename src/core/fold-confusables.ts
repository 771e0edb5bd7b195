import unhomoglyph from "unhomoglyph";

/** Folded characters remembered (bounded): text repeats the same few hundred. */
const foldCache = new Map<string, string>();
const CACHE_LIMIT = 4096;

/**
 * The Latin letter or digit a character imitates (Unicode confusables data, via `unhomoglyph`), or the
 * character itself. Only mappings to one ASCII letter or digit are used: the data also maps ASCII to
 * ASCII (`m` → `rn`, `0` → `O`), which would rewrite the words the patterns look for. What the data
 * leaves short of ASCII is completed: small capitals and the letters that read as them (`ᴛ`, Cyrillic
 * `т`, Greek `τ` → `t`), and accented letters (`ó` → `o`, `Ё` → `e`).
 */
export function fold(char: string): string {
  if (char.charCodeAt(0) < 0x80) return char;
  let out = foldCache.get(char);
  if (out === undefined) {
    out = foldOnce(char);
    if (!ASCII_ALNUM.test(out)) {
      // An accented letter: the letter without its marks, folded in turn.
      const bare = char.normalize("NFD").replace(MARKS, "");
      if (bare && bare !== char) out = foldOnce(bare);
    }
    if (!ASCII_ALNUM.test(out)) out = char;
    if (foldCache.size < CACHE_LIMIT) foldCache.set(char, out);
  }
  return out;
}

const ASCII_ALNUM = /^[A-Za-z0-9]$/;
const MARKS = /\p{M}/gu;

function foldOnce(char: string): string {
  if (ASCII_ALNUM.test(char)) return char;
  const mapped = unhomoglyph(char);
  if (ASCII_ALNUM.test(mapped)) return mapped;
  return SMALL_CAPITALS[char] ?? SMALL_CAPITALS[mapped] ?? char;
}

/**
 * Letters the confusables data maps to another non-ASCII letter (a small capital) or not at all,
 * though they read as a Latin letter in running text.
 */
const SMALL_CAPITALS: Readonly<Record<string, string>> = {
  ᴀ: "a",
  ʙ: "b",
  ᴄ: "c",
  ᴅ: "d",
  ᴇ: "e",
  ꜰ: "f",
  ɢ: "g",
  ʜ: "h",
  ɪ: "i",
  ᴊ: "j",
  ᴋ: "k",
  ʟ: "l",
  ᴍ: "m",
  ɴ: "n",
  ᴏ: "o",
  ᴘ: "p",
  ʀ: "r",
  ꜱ: "s",
  ᴛ: "t",
  ᴜ: "u",
  ᴠ: "v",
  ᴡ: "w",
  ʏ: "y",
  ᴢ: "z",
  ȷ: "j",
  ĸ: "k",
  ʍ: "m",
  ꞓ: "e",
  ɜ: "e",
  ɡ: "g",
  ɑ: "a",
  // Greek and Cyrillic letters that read as the small capital (or the letter) they resemble.
  τ: "t",
  κ: "k",
  ε: "e",
  т: "t",
  м: "m",
  н: "h",
  в: "b",
  к: "k",
  п: "n",
  г: "r",
};

/** A look-alike of both `I` and `l` (the confusables data reads it `l`). */
const I_OR_L = /^[\u0406\u04C0\u0399\u01C0\u05C0\u07CA\u2D4F]$/;

/** Whether `char` imitates a capital I as much as a small l (Cyrillic `І`, Greek `Ι`, Latin `ǀ`). */
export function isIOrL(char: string): boolean {
  return I_OR_L.test(char);
}
