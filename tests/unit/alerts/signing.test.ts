import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dingtalkSign, dingtalkSignedUrl, feishuSign, webhookSignature } from "../../../lib/alerts/channels/signing.ts";

/**
 * Known vectors, computed outside this code with openssl:
 *   printf '1700000000000\nsecret' | openssl dgst -sha256 -hmac secret -binary | base64
 *   printf '' | openssl dgst -sha256 -mac HMAC -macopt "key:$(printf '1700000000\nsecret')" -binary | base64
 */
describe("channel signing", () => {
  it("signs DingTalk robot requests: HMAC-SHA256(secret, timestamp_ms + \\n + secret), Base64, URL-encoded in the query", () => {
    assert.equal(dingtalkSign("secret", 1700000000000), "OuzzJR5+xZ4/EYwqtNt6sMYZQMTa/HEGvc9miJe7XzY=");
    const url = new URL(dingtalkSignedUrl("https://oapi.dingtalk.com/robot/send?access_token=abc", "secret", 1700000000000));
    assert.equal(url.searchParams.get("access_token"), "abc");
    assert.equal(url.searchParams.get("timestamp"), "1700000000000");
    assert.match(url.search, /sign=OuzzJR5%2BxZ4%2FEYwqtNt6sMYZQMTa%2FHEGvc9miJe7XzY%3D/);
  });

  it("signs Feishu/Lark bot requests: HMAC-SHA256 keyed by timestamp_s + \\n + secret over nothing, Base64", () => {
    assert.equal(feishuSign("secret", 1700000000), "fiWS2+gh28DOydAv7hzONH/mDn9+b1Y4Y5ivXWXy8vA=");
  });

  it("signs the generic webhook's body as sha256=<hex>", () => {
    // printf '{}' | openssl dgst -sha256 -hmac k
    assert.equal(webhookSignature("k", "{}"), "sha256=add853b103fbcc936a194f9eb15e29c4ff08af6e47d5d1bca4f20218e31e4fff");
  });
});
