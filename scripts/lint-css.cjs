// Checks style sheets with css-tree (Debian's node-css-tree), its parser and its lexer, which
// knows every standard property's grammar: `node scripts/lint-css.cjs FILE…` prints one line
// per problem (FILE:LINE:COLUMN: what) and exits 1 if there was any. It reports
//   - what does not parse (a missing brace, a stray character),
//   - an unknown property, or a value its property's grammar does not allow,
//   - an at-rule whose prelude does not parse (@media, @keyframes),
//   - a var(--name) that no rule in the file declares.
// A value that uses var() is checked by name only: its grammar holds only once the browser
// substitutes it, which css-tree cannot do.
"use strict";
const csstree = require("css-tree");
const fs = require("fs");

let problems = 0;
for (const file of process.argv.slice(2)) {
  const found = [];
  const report = (line, column, message) => found.push({ line, column, message });
  const at = (node, message) => report(node.loc.start.line, node.loc.start.column, message);
  const firstLine = (error) => String(error.message).split("\n")[0];

  const ast = csstree.parse(fs.readFileSync(file, "utf8"), {
    positions: true,
    filename: file,
    onParseError: (error) => report(error.line, error.column, "does not parse: " + firstLine(error)),
  });

  const declared = new Set();
  const used = [];
  csstree.walk(ast, (node) => {
    if (node.type === "Declaration" && node.property.startsWith("--")) declared.add(node.property);
    if (node.type === "Function" && node.name === "var") {
      const name = node.children.first;
      if (name && name.type === "Identifier") used.push(name);
    }
  });
  for (const name of used) {
    if (!declared.has(name.name)) at(name, `var(${name.name}) is never declared`);
  }

  csstree.walk(ast, {
    visit: "Declaration",
    enter(node) {
      if (node.property.startsWith("--")) return;
      if (node.value.type === "Raw") return; // a parse error, reported above
      let usesVar = false;
      csstree.walk(node.value, (child) => {
        if (child.type === "Function" && child.name === "var") usesVar = true;
      });
      if (usesVar) return;
      const match = csstree.lexer.matchDeclaration(node);
      if (!match.error) return;
      const value = csstree.generate(node.value);
      const unknown = !csstree.lexer.getProperty(node.property);
      at(node, unknown ? `unknown property ${node.property}` : `${node.property}: ${value} is not a valid value`);
    },
  });
  csstree.walk(ast, {
    visit: "Atrule",
    enter(node) {
      const match = csstree.lexer.matchAtrulePrelude(node.name, node.prelude);
      if (match.error) at(node, `@${node.name}: ${firstLine(match.error)}`);
    },
  });
  found.sort((a, b) => a.line - b.line || a.column - b.column);
  for (const { line, column, message } of found) console.log(`${file}:${line}:${column}: ${message}`);
  problems += found.length;
}
process.exit(problems === 0 ? 0 : 1);
