// Parse Mermaid diagrams with Mermaid's own parser (@mermaid-js/parser) and print what it read.
// stdin: a JSON list of [diagramType, text] pairs; stdout: a JSON list, one entry per diagram,
// either {"ok": true, "title": ..., "sections": [[label, value], ...]} or {"ok": false, "error": ...}.
import { parse } from '@mermaid-js/parser';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const diagrams = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const out = [];
for (const [type, text] of diagrams) {
  try {
    const ast = await parse(type, text);
    out.push({ ok: true, title: ast.title ?? null,
               sections: (ast.sections ?? []).map((s) => [s.label, s.value]) });
  } catch (e) {
    out.push({ ok: false, error: String(e.message ?? e) });
  }
}
process.stdout.write(JSON.stringify(out));
