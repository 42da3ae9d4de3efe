/**
 * Who watches the answers the apps give, if anyone. Production installs nobody, and an app
 * built then has no hook for it at all; the test run's preload installs the OpenAPI contract
 * recorder (test/setup/contract.ts) before any app is built, so every answer a test sees is
 * checked against the document.
 */
export type AnswerObserver = (
  service: string,
  method: string,
  route: string,
  status: number,
  value: unknown,
) => void;

let installed: AnswerObserver | undefined;

/** Installs the observer of the apps built from now on (undefined: none). */
export function observeAnswers(observer: AnswerObserver | undefined): void {
  installed = observer;
}

/** The observer installed now, if any. */
export function answerObserver(): AnswerObserver | undefined {
  return installed;
}
