/** The pages' one small stylesheet, inlined in each page (no build step, no second request). */
export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:1.0625rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--text);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,main:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem 1rem}
.skip:focus{left:1rem}
.banner,.footer,main,.newsletter{max-width:60rem;margin:0 auto;padding:1rem 1.25rem}
.banner{border-bottom:4px solid var(--accent)}
.brand{display:inline-flex;align-items:center;gap:.75rem;font-weight:700;font-size:1.375rem;text-decoration:none;color:var(--text)}
.brand img{max-height:40px;width:auto}
h1,h2,h3{line-height:1.25}
h1{font-size:2rem;margin:.5rem 0 1rem}
.cards{list-style:none;padding:0;display:grid;gap:1.25rem;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr))}
.card{border:1px solid #d4d4d4;border-radius:.5rem;padding:1rem}
.card h3{margin:.25rem 0 .5rem;font-size:1.125rem}
.card img{width:100%;height:auto;border-radius:.25rem}
.meta{color:#525252;font-size:.9375rem}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0}
.filters a{display:inline-block;padding:.25rem .75rem;border:1px solid var(--accent);border-radius:1rem;text-decoration:none}
.filters a[aria-current]{background:var(--accent);color:var(--on-accent)}
.more{display:inline-block;margin:1rem 0;padding:.5rem 1rem;background:var(--accent);color:var(--on-accent);border-radius:.25rem;text-decoration:none}
article img{max-width:100%;height:auto}
blockquote{margin:1rem 0;padding-left:1rem;border-left:4px solid var(--accent)}
figure{margin:1rem 0}
figcaption{color:#525252;font-size:.9375rem}
.newsletter{border-top:1px solid #d4d4d4}
.newsletter label{display:block;margin:.5rem 0}
.newsletter input[type=email]{padding:.5rem;font:inherit;border:1px solid #737373;border-radius:.25rem;min-width:16rem}
.newsletter button{padding:.5rem 1rem;font:inherit;background:var(--accent);color:var(--on-accent);border:0;border-radius:.25rem;cursor:pointer}
.footer{color:#525252;font-size:.9375rem}
.preview-banner{background:#fff4d6;border-bottom:4px solid #8a5a00;color:#1b1f24;padding:.5rem 1rem;margin:0}
.uncleared{background:#fff4d6;border-left:4px solid #8a5a00;color:#1b1f24;padding:.25rem .5rem;margin:0}
`;
