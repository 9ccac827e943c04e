// The 46 tile classes in the order of the models' outputs. Mirrors vision/read/classes.py.
// Tile codes in mpsz (0m 0p 0s are red fives), flowers/seasons 1f..8f and "back" (face down).

export const TILE_CLASSES = Object.freeze([
  ...['m', 'p', 's'].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${s}`)),
  ...[1, 2, 3, 4, 5, 6, 7].map((n) => `${n}z`),
  '0m', '0p', '0s',
  ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `${n}f`),
  'back',
]);
if (TILE_CLASSES.length !== 46) throw new Error('TILE_CLASSES must hold 46 classes');
export const CLASS_INDEX = Object.freeze(Object.fromEntries(TILE_CLASSES.map((c, i) => [c, i])));
