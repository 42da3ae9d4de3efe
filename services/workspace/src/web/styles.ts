/** The app's one stylesheet: served at /app/styles.css, no build step. */
export const STYLESHEET = `
:root { --ink: #1b1f24; --muted: #4a5360; --line: #c9ced6; --accent: #0b5cad; --bad: #a4161a;
  --good: #1b6e35; --bg: #ffffff; --soft: #f3f5f8; font-family: system-ui, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--bg); line-height: 1.5; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--ink); color: #fff; padding: .5rem 1rem; }
.skip:focus { left: 0; z-index: 10; }
header.top { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center;
  gap: 1rem; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--soft); }
header.top nav a { margin-right: 1rem; }
.brand { font-weight: 700; color: var(--ink); text-decoration: none; }
.account { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
.who { margin: 0; color: var(--muted); }
ul.tabs { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; margin: 0;
  padding: .5rem 1.5rem; border-bottom: 1px solid var(--line); }
ul.tabs a[aria-current] { font-weight: 700; color: var(--ink); }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
footer { color: var(--muted); padding: 1rem 1.5rem; border-top: 1px solid var(--line); }
.field { margin: 1rem 0; }
label { display: block; font-weight: 600; }
input[type=text], input[type=email], input[type=url], input[type=search], input:not([type]), textarea { font: inherit; padding: .5rem;
  width: 100%; max-width: 30rem; border: 1px solid #6b7480; border-radius: 4px; }
textarea { min-height: 6rem; }
.hint { margin: .25rem 0; color: var(--muted); }
.error { margin: .25rem 0; color: var(--bad); font-weight: 600; }
.has-error input, .has-error textarea { border-color: var(--bad); border-width: 2px; }
button, .button { font: inherit; padding: .5rem 1rem; border-radius: 4px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
button.link { background: none; border: none; color: var(--accent); padding: 0; text-decoration: underline; }
form.inline { display: inline; }
.notice { border-left: 4px solid var(--accent); background: var(--soft); padding: .5rem 1rem; margin: 1rem 0; }
.notice.error { border-color: var(--bad); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top;
  overflow-wrap: anywhere; }
main, dd, code, .who { overflow-wrap: anywhere; }
select, textarea, input { max-width: 100%; }
svg { max-width: 100%; }
pre { max-width: 100%; overflow-x: auto; }
.status { display: inline-block; padding: 0 .5rem; border-radius: 1rem; background: var(--soft);
  border: 1px solid var(--line); }
.compare { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.compare ol { list-style: none; padding: 0; margin: 0; }
.compare li { padding: .25rem .5rem; border-bottom: 1px solid var(--soft); white-space: pre-wrap; }
pre.answer { margin: 0; max-width: 40rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.compare del, .compare ins { text-decoration: none; display: block; }
.compare del { background: #fde2e2; }
.compare ins { background: #dcf3e2; }
.marker { font-weight: 700; }
textarea.code { font-family: ui-monospace, monospace; font-size: .875rem; max-width: 100%; }
select { font: inherit; padding: .4rem; border: 1px solid #6b7480; border-radius: 4px; }
.field.check label { display: inline; font-weight: 400; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; min-width: 0; }
.pages a { margin-right: 1rem; }
fieldset.choices { border: 1px solid var(--line); border-radius: 4px; margin: 1rem 0; max-width: 30rem; }
fieldset.choices label { font-weight: normal; }
.actions { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; margin: 1rem 0; }
.chart svg { max-width: 40rem; }
.review { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; }
.review .compare { grid-template-columns: 1fr; }
article.reading { border: 1px solid var(--line); border-radius: 4px; padding: 0 1rem; overflow-wrap: anywhere; }
article.reading img { max-width: 100%; height: auto; }
.uncleared { background: #fff4d6; border-left: 4px solid #8a5a00; padding: .25rem .5rem; margin: 0; }
fieldset.block { border: 1px solid var(--line); border-radius: 4px; margin: 1rem 0; max-width: 40rem; }
fieldset.block.has-error { border-color: var(--bad); border-width: 2px; }
.handle { cursor: grab; margin-right: .5rem; }
@media (max-width: 48rem) { .review { grid-template-columns: 1fr; } }
ul.assets { list-style: none; padding: 0; }
ul.assets li { display: flex; flex-wrap: wrap; gap: 1rem; padding: 1rem 0; border-top: 1px solid var(--line); }
ul.assets img { max-width: 100%; height: auto; }
ul.assets p { margin: .25rem 0; overflow-wrap: anywhere; }
.legend { list-style: none; display: flex; gap: 1rem; padding: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
/* A phone (390 px): one column; a table still too wide scrolls within its own box, a shadow at
   the edge showing there is more. */
@media (max-width: 40rem) {
  header.top, ul.tabs { padding-left: 1rem; padding-right: 1rem; }
  main { padding: 1rem; }
  .compare, dl.facts { grid-template-columns: 1fr; }
  table { display: block; overflow-x: auto;
    background: linear-gradient(to right, #fff 30%, rgba(255,255,255,0)) left / 2rem 100% no-repeat local,
      linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 2rem 100% no-repeat local,
      radial-gradient(farthest-side at 0 50%, rgba(0,0,0,.25), transparent) left / .75rem 100% no-repeat scroll,
      radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.25), transparent) right / .75rem 100% no-repeat scroll; }
}
`;
