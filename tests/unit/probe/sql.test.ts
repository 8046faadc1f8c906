import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { checkProbeSql, type SqlDialect } from "../../../collectors/business-probe/sql.ts";

const DIALECTS: SqlDialect[] = ["mysql", "postgres"];
const ok = (sql: string, dialect: SqlDialect) => checkProbeSql(sql, dialect).ok;

function refused(sql: string, dialect: SqlDialect, reason: RegExp): void {
  const check = checkProbeSql(sql, dialect);
  assert.equal(check.ok, false, `${dialect} accepted: ${sql}`);
  if (!check.ok) assert.match(check.reason, reason, sql);
}

describe("the probe query check accepts", () => {
  it("a plain SELECT with :bizKey, rewritten for each driver", () => {
    const sql = "SELECT id, created_at, updated_by FROM payment WHERE order_id = :bizKey";
    assert.deepEqual(checkProbeSql(sql, "mysql"), { ok: true, sql: "SELECT id, created_at, updated_by FROM payment WHERE order_id = ?", params: 1 });
    assert.deepEqual(checkProbeSql(sql, "postgres"), { ok: true, sql: "SELECT id, created_at, updated_by FROM payment WHERE order_id = $1", params: 1 });
  });

  it("the placeholder twice: two ? for mysql2, $1 twice for pg", () => {
    const sql = "SELECT id, created_at FROM payment WHERE order_id = :bizKey OR refund_of = :bizKey";
    const mysql = checkProbeSql(sql, "mysql");
    assert.ok(mysql.ok && mysql.params === 2 && mysql.sql.endsWith("order_id = ? OR refund_of = ?"));
    const pg = checkProbeSql(sql, "postgres");
    assert.ok(pg.ok && pg.sql.endsWith("order_id = $1 OR refund_of = $1"));
  });

  it("WITH … SELECT, subqueries, joins, casts, comments, and write words inside strings, names and comments", () => {
    for (const dialect of DIALECTS) {
      for (const sql of [
        "WITH p AS (SELECT id, created_at FROM payment WHERE order_id = :bizKey) SELECT * FROM p",
        "(SELECT id, created_at FROM payment WHERE order_id = :bizKey) UNION ALL (SELECT id, created_at FROM refund WHERE order_id = :bizKey)",
        "SELECT p.id, p.created_at FROM payment p JOIN ledger l ON l.payment_id = p.id WHERE p.order_id = :bizKey ORDER BY p.created_at LIMIT 10",
        "SELECT id, created_at, updated_by, 'DELETE FROM x; INSERT INTO y' AS note FROM payment WHERE order_id = :bizKey",
        "SELECT id, created_at FROM payment -- we never UPDATE here; honest\nWHERE order_id = :bizKey",
        "SELECT id, created_at /* FOR UPDATE; */ FROM payment WHERE order_id = :bizKey",
        "SELECT id, SUBSTRING(memo FROM 1 FOR 3) AS m, created_at FROM payment WHERE order_id = :bizKey",
        "SELECT id, created_at FROM payment WHERE order_id = :bizKey AND status IN ('PAID', 'it''s; fine')",
      ]) {
        assert.ok(ok(sql, dialect), `${dialect}: ${sql} → ${JSON.stringify(checkProbeSql(sql, dialect))}`);
      }
    }
    assert.ok(ok('SELECT "id", created_at::text AS t, $$a;b$$ AS s FROM "update" WHERE order_id = :bizKey', "postgres"));
    assert.ok(ok("SELECT `id`, `delete` FROM `payment` WHERE order_id = :bizKey # trailing ; comment", "mysql"));
    assert.ok(ok("SELECT id, created_at FROM payment WHERE order_id = :bizKey AND note = E'it\\'s'", "postgres"));
    assert.ok(ok("SELECT id FROM payment WHERE order_id = :bizKey /* outer /* nested ; */ still comment */", "postgres"));
    assert.ok(ok("SELECT 1--1\nFROM payment WHERE order_id = :bizKey", "mysql"));
  });
});

describe("the probe query check refuses", () => {
  it("a second statement: any ; outside strings and comments, trailing one included", () => {
    for (const dialect of DIALECTS) {
      refused("SELECT id FROM payment WHERE order_id = :bizKey; DELETE FROM payment", dialect, /";" at 48/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey;", dialect, /single statement/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey /* x */ ; DROP TABLE payment", dialect, /";"/);
    }
  });

  it("a statement that is not a SELECT", () => {
    for (const dialect of DIALECTS) {
      refused("DELETE FROM payment WHERE order_id = :bizKey", dialect, /must be a SELECT.*not DELETE/);
      refused("UPDATE payment SET x = 1 WHERE order_id = :bizKey", dialect, /not UPDATE/);
      refused("INSERT INTO payment (order_id) VALUES (:bizKey)", dialect, /not INSERT/);
      refused("CALL refund(:bizKey)", dialect, /not CALL/);
      refused("EXPLAIN ANALYZE SELECT * FROM payment WHERE order_id = :bizKey", dialect, /not EXPLAIN/);
      refused("  -- nothing here\n", dialect, /empty/);
      refused("", dialect, /empty/);
    }
  });

  it("writing or locking from inside a SELECT: INTO, data-modifying WITH, FOR UPDATE / SHARE, LOCK IN SHARE MODE", () => {
    for (const dialect of DIALECTS) {
      refused("SELECT id INTO @x FROM payment WHERE order_id = :bizKey", dialect, /INTO/);
      refused("SELECT * INTO copy_of_payment FROM payment WHERE order_id = :bizKey", dialect, /INTO/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey INTO OUTFILE '/tmp/p.csv'", dialect, /INTO/);
      refused("WITH gone AS (DELETE FROM payment WHERE order_id = :bizKey RETURNING *) SELECT * FROM gone", dialect, /DELETE/);
      refused("WITH n AS (INSERT INTO audit (k) VALUES (:bizKey) RETURNING id) SELECT id FROM n", dialect, /INSERT|INTO/);
      refused("WITH u AS (UPDATE payment SET status = 'X' WHERE order_id = :bizKey RETURNING *) SELECT * FROM u", dialect, /UPDATE/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey FOR UPDATE", dialect, /UPDATE/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey FOR SHARE", dialect, /FOR SHARE/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey FOR NO KEY UPDATE", dialect, /FOR NO|UPDATE/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey LOCK IN SHARE MODE", dialect, /LOCK IN SHARE MODE/);
    }
  });

  it("queries without :bizKey, with other placeholders, or with positional parameters", () => {
    for (const dialect of DIALECTS) {
      refused("SELECT id FROM payment", dialect, /must use :bizKey/);
      refused("SELECT id FROM payment WHERE order_id = ':bizKey'", dialect, /must use :bizKey/);
      refused("SELECT id FROM payment WHERE order_id = :orderId", dialect, /unknown placeholder :orderId/);
    }
    refused("SELECT id FROM payment WHERE order_id = ?", "mysql", /positional parameter/);
    refused("SELECT id FROM payment WHERE order_id = $1", "postgres", /positional parameter/);
  });

  it("unterminated strings and comments, MySQL's executable comments, control characters", () => {
    for (const dialect of DIALECTS) {
      refused("SELECT id FROM payment WHERE order_id = :bizKey AND note = 'open", dialect, /unterminated string/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey /* open", dialect, /unterminated comment/);
      refused("SELECT id FROM payment WHERE order_id = :bizKey\u0000", dialect, /control character/);
    }
    refused("SELECT id FROM payment WHERE order_id = :bizKey /*! ; DELETE FROM payment */", "mysql", /executable comment/);
    refused("SELECT id FROM payment WHERE order_id = :bizKey /*M!100000 DELETE FROM payment */", "mysql", /executable comment/);
    refused("SELECT $tag$ open FROM payment WHERE order_id = :bizKey", "postgres", /unterminated dollar/);
  });

  it("a string whose end depends on whether the server reads backslashes as escapes", () => {
    // With backslash escapes the string runs to the last quote; without them, `; DELETE …` is a second statement.
    refused("SELECT id FROM payment WHERE order_id = :bizKey AND note = 'a\\' ; DELETE FROM payment; -- '", "mysql", /";"|DELETE/);
    refused("SELECT id FROM payment WHERE order_id = :bizKey AND note = 'a\\' ; DELETE FROM payment; -- '", "postgres", /";"|DELETE/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Properties

/** Text that may hold anything, SQL included: the content of a literal or a comment. */
const anyText = fc.string({ unit: fc.constantFrom("a", "Z", " ", ";", "'", '"', "`", "-", "*", "/", "#", "$", ":", "\n", "DELETE", "INTO", ":bizKey", "FOR UPDATE", "é", "字"), maxLength: 20 });

/** A literal or comment holding `text`, quoted so that every server and setting reads it the same way. */
function safeFragment(dialect: SqlDialect) {
  return fc.oneof(
    anyText.map((t) => `'${t.replace(/\\/g, "").replace(/'/g, "''")}'`),
    anyText.map((t) => `/* ${t.replace(/\*\//g, "* /").replace(/\/\*/g, "/ *")} */`),
    anyText.map((t) => `-- ${t.replace(/\n/g, " ")}\n`),
    ...(dialect === "mysql" ? [anyText.map((t) => `\`${t.replace(/`/g, "``")}\``), anyText.map((t) => `# ${t.replace(/\n/g, " ")}\n`)] : [anyText.map((t) => `"${t.replace(/"/g, '""')}"`)]),
    fc.constantFrom("id", "created_at", "p.updated_by", "42", "3.5", "(1 + 2)", "COALESCE(a, b)"),
  );
}

/** A single SELECT with :bizKey and random literals and comments: the truth is "valid". */
function validSelect(dialect: SqlDialect) {
  return fc.tuple(fc.array(safeFragment(dialect), { minLength: 1, maxLength: 4 }), fc.array(safeFragment(dialect), { maxLength: 3 }), fc.boolean()).map(([cols, extra, cte]) => {
    const select = `SELECT ${cols.join(", ")} FROM payment WHERE order_id = :bizKey${extra.map((e) => ` AND x <> ${e}`).join("")}`;
    return cte ? `WITH p AS (${select}) SELECT * FROM p` : select;
  });
}

/** Something that makes any query invalid wherever it stands outside literals and comments. */
const POISON = [
  "; DELETE FROM payment",
  ";",
  " INTO OUTFILE '/tmp/x'",
  " INTO @v",
  " FOR UPDATE",
  " FOR SHARE",
  " LOCK IN SHARE MODE",
  " UNION SELECT * FROM (DELETE FROM t RETURNING *) d",
  " AND :other = 1",
];
/** … and what makes it invalid at the end (spliced in the middle, a later quote or comment end could pair with it). */
const POISON_AT_END = [...POISON, " 'unterminated", " /* unterminated", ' "unterminated'];

describe("the probe query check, property-based", () => {
  for (const dialect of DIALECTS) {
    it(`${dialect}: every single SELECT built from arbitrary literals and comments passes`, () => {
      fc.assert(
        fc.property(validSelect(dialect), (sql) => {
          const check = checkProbeSql(sql, dialect);
          assert.ok(check.ok, `${sql} → ${JSON.stringify(check)}`);
          // The one :bizKey the builder wrote outside literals; those inside literals and comments stay text.
          assert.equal(check.params, 1);
        }),
        { numRuns: 400 },
      );
    });

    it(`${dialect}: the same SELECT with a second statement, INTO, a lock or an open quote spliced in never passes`, () => {
      fc.assert(
        fc.property(validSelect(dialect), fc.constantFrom(...POISON), fc.nat(), (sql, poison, at) => {
          // Splice at a boundary outside every literal and comment: right after a space that the builder wrote itself.
          const spaces = [...sql.matchAll(/ (?=FROM |WHERE |AND |SELECT \* FROM p$)/g)].map((m) => m.index!);
          const where = spaces.length === 0 ? sql.length : spaces[at % spaces.length]!;
          const bad = `${sql.slice(0, where)}${poison}${sql.slice(where)}`;
          assert.equal(checkProbeSql(bad, dialect).ok, false, bad);
        }),
        { numRuns: 400 },
      );
      fc.assert(
        fc.property(validSelect(dialect), fc.constantFrom(...POISON_AT_END), (sql, poison) => {
          assert.equal(checkProbeSql(`${sql}${poison}`, dialect).ok, false, `${sql}${poison}`);
        }),
        { numRuns: 400 },
      );
    });

    it(`${dialect}: any leading statement but SELECT or WITH never passes`, () => {
      fc.assert(
        fc.property(fc.constantFrom("DELETE", "UPDATE", "INSERT", "REPLACE", "DROP", "CREATE", "ALTER", "TRUNCATE", "CALL", "DO", "SET", "LOAD", "COPY", "GRANT", "EXPLAIN", "VALUES", "TABLE", "SHOW", "HANDLER", "LOCK"), validSelect(dialect), (verb, sql) => {
          assert.equal(checkProbeSql(`${verb} ${sql}`, dialect).ok, false);
        }),
      );
    });

    it(`${dialect}: random strings never pass unless they are a single SELECT`, () => {
      // SQL-ish fragments, often led by SELECT and holding the key, so that a fair share of them pass.
      const part = fc.constantFrom("SELECT", "WITH", " ", " ", "id", ",", "FROM", "t", "WHERE", "=", ":bizKey", ";", "'", "''", "\\", '"', "`", "--", "-- ", "#", "/*", "*/", "/*!", "\n", "INTO", "DELETE", "FOR", "UPDATE", "(", ")", "$$", "$x$", "E", "?", "$1", "x");
      const soup = fc
        .tuple(fc.constantFrom("", "SELECT ", "SELECT id FROM t WHERE k = ", "WITH ", "(SELECT "), fc.array(part, { maxLength: 12 }), fc.constantFrom("", " :bizKey "), fc.array(part, { maxLength: 12 }))
        .map(([lead, a, key, b]) => `${lead}${a.join("")}${key}${b.join("")}`);
      fc.assert(
        fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), soup), (text) => {
          const check = checkProbeSql(text, dialect);
          if (!check.ok) return;
          // What passed is one statement that reads: it names SELECT and the key, cannot be turned into a write by a
          // leading verb, and whatever is appended after a line break as a second statement, INTO or a lock is refused.
          assert.match(text, /SELECT/i);
          assert.match(text, /:bizKey/);
          assert.ok(check.params >= 1);
          assert.equal(checkProbeSql(`DELETE ${text}`, dialect).ok, false, `DELETE ${text}`);
          assert.equal(checkProbeSql(`${text}\n; DELETE FROM t`, dialect).ok, false, `${text} + second statement`);
          assert.equal(checkProbeSql(`${text}\nFOR UPDATE`, dialect).ok, false, `${text} + FOR UPDATE`);
          assert.equal(checkProbeSql(`${text}\nINTO OUTFILE '/tmp/x'`, dialect).ok, false, `${text} + INTO`);
        }),
        { numRuns: 3000 },
      );
    });
  }
});
