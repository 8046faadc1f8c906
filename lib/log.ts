import pino from "pino";

export const logger = pino({
  name: "dupscope",
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "warn" : "info"),
});
