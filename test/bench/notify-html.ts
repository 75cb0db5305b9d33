/** The message body of the notify bench rows (test/bench/notify.ts, notify-child.ts). */
export const benchHtml = (i: number) => `<html><body><h1>Order ${i}</h1><p>${'Thank you for your order. '.repeat(20)}</p><p><a href="https://example.com/o/${i}">https://example.com/o/${i}</a></p></body></html>`;
