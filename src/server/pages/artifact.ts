import type { ArtifactChunk } from "../api.js";
import { type Html, href, html } from "../html.js";
import { layout } from "./layout.js";

/** One chunk of a transcript or review artifact, with links to the neighbouring chunks. */
export function artifactPage(taskId: string, name: string, chunk: ArtifactChunk, chunkSize: number): Html {
  const base = href("/tasks", taskId, "artifacts", name);
  const prev = chunk.offset > 0 ? Math.max(0, chunk.offset - chunkSize) : null;
  const nav = html`<nav class="pager">${prev !== null ? html`<a href="${base}?offset=${prev}">← previous</a>` : ""}
bytes ${chunk.offset.toLocaleString("en")}–${(chunk.offset + Buffer.byteLength(chunk.text)).toLocaleString("en")} of ${chunk.bytes.toLocaleString("en")}
${chunk.next !== null ? html`<a href="${base}?offset=${chunk.next}">next →</a>` : ""}</nav>`;
  return layout(
    `${taskId} ${name}`,
    html`<h1><a href="${href("/tasks", taskId)}">${taskId}</a> · ${name}</h1>
${nav}<pre class="transcript">${chunk.text}</pre>${nav}`,
  );
}
