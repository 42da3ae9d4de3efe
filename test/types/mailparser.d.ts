declare module "mailparser" {
  export interface ParsedAddress {
    value: { name: string; address?: string }[];
    text: string;
  }
  export interface ParsedMail {
    from?: ParsedAddress;
    subject?: string;
  }
  export function simpleParser(source: string | Buffer): Promise<ParsedMail>;
}
