// Compile-time stub of the RocketMQ client, checked against apache/rocketmq at commit 8fc57f1468d1 (2025-09-19) and
// at rocketmq-all-4.9.8: the same package, names and signatures, only the members dupscope's DedupLogListener and
// its tests use. Never ship it: at run time the real rocketmq-client jar provides this type.
package org.apache.rocketmq.common.message;

public class Message {
    private String topic;
    private String keys; // upstream keeps it in the properties map, under MessageConst.PROPERTY_KEYS ("KEYS")

    public Message() {
    }

    public String getTopic() {
        return topic;
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public String getKeys() {
        return keys;
    }

    public void setKeys(String keys) {
        this.keys = keys;
    }
}
