/* SPDX-License-Identifier: GPL-2.0-only */
// Small DOM helpers shared by bisectd's pages.  Text always goes in as
// text (textContent), never as HTML.
function code(t) { const c = document.createElement('code'); c.textContent = t; return c; }
function link(href, t) { const a = document.createElement('a'); a.href = href; a.textContent = t; return a; }
function badge(t) { const b = document.createElement('span'); b.className = 'badge ' + t; b.textContent = t; return b; }
function when(t) { return t ? new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19) : ''; }
function row(cells) {
  const tr = document.createElement('tr');
  for (const c of cells) {
    const td = document.createElement('td');
    if (c instanceof Node) td.appendChild(c); else td.textContent = c;
    tr.appendChild(td);
  }
  return tr;
}
