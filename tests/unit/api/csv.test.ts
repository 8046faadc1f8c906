import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { csvField, csvRow } from "../../../lib/api/csv.ts";

describe("CSV export", () => {
  it("quotes what needs quoting and leaves the rest", () => {
    assert.equal(csvRow(["PAY-1", 42, true, null, 'a "quoted", text', "two\nlines"]), 'PAY-1,42,true,,"a ""quoted"", text","two\nlines"\r\n');
  });

  it("keeps spreadsheets from running a field as a formula", () => {
    assert.equal(csvField("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
    assert.equal(csvField("-1"), "'-1");
    assert.equal(csvField(-1), "-1", "numbers stay numbers");
  });
});
