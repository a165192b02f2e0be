import { describe, expect, it } from "vitest";
import { textTable } from "./common";

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
