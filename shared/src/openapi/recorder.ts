/**
 * In tests, every answer an app gives is recorded here and checked against the OpenAPI
 * document at the end of the run: the test preload (test/setup/contract.ts) installs
 * `recordAnswer` as the apps' answer observer. No production module imports this one.
 */
export interface RecordedAnswer {
  service: string;
  method: string;
  route: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

export const answerRecorder = {
  enabled: false,
  answers: [] as RecordedAnswer[],
  pending: [] as Promise<void>[],
};

export function recordAnswer(
  service: string,
  method: string,
  route: string,
  status: number,
  value: unknown,
): void {
  if (!answerRecorder.enabled) return;
  if (value instanceof Response) {
    const contentType = value.headers.get("content-type");
    const read = value
      .clone()
      .text()
      .then((text) => {
        let body: unknown = text;
        if (contentType?.includes("json") && text) {
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        }
        answerRecorder.answers.push({
          service,
          method,
          route,
          status: value.status,
          contentType,
          body,
        });
      })
      .catch(() => undefined);
    answerRecorder.pending.push(read);
    return;
  }
  const isJson = value !== null && typeof value === "object";
  answerRecorder.answers.push({
    service,
    method,
    route,
    status,
    contentType: isJson ? "application/json" : "text/plain",
    body: isJson ? JSON.parse(JSON.stringify(value)) : value,
  });
}
