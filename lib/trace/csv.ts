// Splits one CSV line into fields (RFC 4180 quoting). Runs in k6 and Node (pure).
//
// Our own ~30 lines rather than papaparse: lib/ is type-checked for k6 without Node's types, and @types/papaparse
// pulls them in (it references "node"), which would let Node-only globals slip into k6 code unnoticed. A record is one
// line: no trace format has a line break inside a field, so a line-based reader keeps line numbers exact.

/** The fields of one line, or null when its quoting is broken (an unclosed quote, text after a closing quote). */
export function splitCsvLine(line: string): string[] | null {
  if (line.indexOf('"') < 0) return line.split(',');
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = line.indexOf('"', j);
        if (q < 0) return null;
        value += line.slice(j, q);
        if (line[q + 1] === '"') {
          value += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      if (i < line.length && line[i] !== ',') return null;
      fields.push(value);
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? line.length : comma;
      // A quote inside an unquoted field is kept as text, as most readers do.
      fields.push(line.slice(i, end));
      i = end;
    }
    if (i >= line.length) return fields;
    i++; // past the comma; a line ending in a comma has an empty last field
    if (i === line.length) {
      fields.push('');
      return fields;
    }
  }
}
