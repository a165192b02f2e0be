import { describe, expect, it } from "vitest";
import { figureBesideVerdict, textTable } from "./common";

describe("textTable", () => {
  it("sizes each column to its widest cell, aligns figures right and text left, and leaves no trailing spaces", () => {
    const lines = textTable(
      ["row", "n", "note"],
      [
        ["first", "7", "short"],
        ["a longer row", "1234", ""],
      ],
      (column) => column === 1,
    );
    expect(lines).toEqual(["row              n  note", "------------  ----  -----", "first            7  short", "a longer row  1234"]);
  });

  it("prints the header and its rule when there are no rows", () => {
    expect(textTable(["scenario", "p50 ms"], [], () => true)).toEqual(["scenario  p50 ms", "--------  ------"]);
  });
});

describe("figureBesideVerdict", () => {
  const atLeast90 = (figure: number) => figure >= 90;
  const under50 = (figure: number) => figure < 50;

  it("rounds to the digits asked for when the rounded figure tells the same as the verdict", () => {
    expect(figureBesideVerdict(93.24, 1, atLeast90)).toBe("93.2");
    expect(figureBesideVerdict(89.94, 1, atLeast90)).toBe("89.9");
    expect(figureBesideVerdict(90, 1, atLeast90)).toBe("90.0");
    expect(figureBesideVerdict(49.994, 2, under50)).toBe("49.99");
  });

  it("adds digits until the figure is on its verdict's side of the target", () => {
    // 89.95 misses 90 but rounds to 90.0; 49.996 meets "under 50" but rounds to 50.00.
    expect(figureBesideVerdict(89.95, 1, atLeast90)).toBe("89.95");
    expect(figureBesideVerdict(89.99993, 1, atLeast90)).toBe("89.9999");
    expect(figureBesideVerdict(49.996, 2, under50)).toBe("49.996");
  });

  it("past four more digits, prints the number in full", () => {
    expect(figureBesideVerdict(89.9999999, 1, atLeast90)).toBe("89.9999999");
  });
});
