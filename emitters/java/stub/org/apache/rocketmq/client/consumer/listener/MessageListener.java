// Compile-time stub of the RocketMQ client, checked against apache/rocketmq at commit 8fc57f1468d1 (2025-09-19) and
// at rocketmq-all-4.9.8: the same package, names and signatures, only the members dupscope's DedupLogListener and
// its tests use. Never ship it: at run time the real rocketmq-client jar provides this type.
package org.apache.rocketmq.client.consumer.listener;

public interface MessageListener {
}
