import { validateXML } from "xmllint-wasm";

/**
 * Validates XML against the sitemaps.org schemas (sitemap.xsd, siteindex.xsd beside this file)
 * with libxml2's validator compiled to WebAssembly (xmllint-wasm, a devDependency: a missing
 * validator fails the import, never skips the test). Returns libxml2's messages; empty when valid.
 */
export async function sitemapSchemaErrors(
  xml: string,
  schema: "sitemap.xsd" | "siteindex.xsd",
): Promise<string[]> {
  const contents = await Bun.file(new URL(schema, import.meta.url)).text();
  const result = await validateXML({
    xml: [{ fileName: "document.xml", contents: xml }],
    schema: [{ fileName: schema, contents }],
  });
  return result.valid ? [] : result.errors.map((error) => error.rawMessage);
}
