// A mail sink for the benchmarks' production servers: SMTP_URL must be set in production, and a mail
// a run causes (a usage warning to the owner, an alert) must be delivered somewhere, not fail its job
// and a bench's "no failed jobs" check with it. It speaks the part of SMTP nodemailer uses on a plain
// connection (EHLO/HELO, MAIL, RCPT, DATA with dot-stuffing, RSET, NOOP, QUIT), keeps nothing but a
// count, and refuses a message over 10 MB with 552 as a real server would.
import net from "node:net";

const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Starts the sink on a free loopback port: { url, received(), stop() }. */
export async function startSmtpSink() {
  let received = 0;
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const reply = (line) => socket.write(`${line}\r\n`);
    let buffer = "";
    let inData = false;
    let dataBytes = 0;
    let from = false;
    let to = 0;
    reply("220 jumbe-bench-sink ESMTP");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end === -1) {
            // Keep the last 4 bytes: the end marker may straddle two chunks.
            dataBytes += Math.max(0, buffer.length - 4);
            buffer = buffer.slice(-4);
            if (dataBytes > MAX_MESSAGE_BYTES) {
              reply("552 5.3.4 Message too big");
              socket.end();
            }
            return;
          }
          dataBytes += end;
          buffer = buffer.slice(end + 5);
          inData = false;
          if (dataBytes > MAX_MESSAGE_BYTES) reply("552 5.3.4 Message too big");
          else {
            received++;
            reply("250 2.0.0 Ok: queued");
          }
          from = false;
          to = 0;
          continue;
        }
        const newline = buffer.indexOf("\r\n");
        if (newline === -1) {
          if (buffer.length > 4096) {
            reply("500 5.5.2 Line too long");
            socket.end();
          }
          return;
        }
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO") socket.write("250-jumbe-bench-sink\r\n250-SIZE 10485760\r\n250 8BITMIME\r\n");
        else if (verb === "HELO") reply("250 jumbe-bench-sink");
        else if (verb === "MAIL") {
          from = true;
          to = 0;
          reply("250 2.1.0 Ok");
        } else if (verb === "RCPT") {
          if (!from) reply("503 5.5.1 MAIL first");
          else {
            to++;
            reply("250 2.1.5 Ok");
          }
        } else if (verb === "DATA") {
          if (!from || !to) reply("503 5.5.1 RCPT first");
          else {
            inData = true;
            dataBytes = 0;
            reply("354 End data with <CR><LF>.<CR><LF>");
          }
        } else if (verb === "RSET") {
          from = false;
          to = 0;
          reply("250 2.0.0 Ok");
        } else if (verb === "NOOP") reply("250 2.0.0 Ok");
        else if (verb === "QUIT") {
          reply("221 2.0.0 Bye");
          socket.end();
        } else reply("502 5.5.2 Command not recognised");
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    received: () => received,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
