// Parse Mermaid diagrams with Mermaid itself (mermaid.parse), for the diagram types that
// @mermaid-js/parser does not cover (xychart). Mermaid's sanitiser needs a DOM, so a jsdom
// window stands in for the browser's. stdin: a JSON list of diagram texts; stdout: a JSON
// list, one {"ok": true, "type": ...} or {"ok": false, "error": ...} per diagram.
import { JSDOM } from 'jsdom';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const texts = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const dom = new JSDOM('');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
const out = [];
for (const text of texts) {
  try {
    const parsed = await mermaid.parse(text);
    out.push({ ok: true, type: parsed.diagramType });
  } catch (e) {
    out.push({ ok: false, error: String(e.message ?? e) });
  }
}
process.stdout.write(JSON.stringify(out));
