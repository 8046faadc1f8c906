// Compile-time stub of the RocketMQ client, checked against apache/rocketmq at commit 8fc57f1468d1 (2025-09-19) and
// at rocketmq-all-4.9.8: the same package, names and signatures, only the members dupscope's DedupLogListener and
// its tests use. Never ship it: at run time the real rocketmq-client jar provides this type.
package org.apache.rocketmq.common.message;

public class MessageExt extends Message {
    private long queueOffset;
    private String msgId;
    private int reconsumeTimes;

    public MessageExt() {
    }

    public String getMsgId() {
        return msgId;
    }

    public void setMsgId(String msgId) {
        this.msgId = msgId;
    }

    public long getQueueOffset() {
        return queueOffset;
    }

    public void setQueueOffset(long queueOffset) {
        this.queueOffset = queueOffset;
    }

    public int getReconsumeTimes() {
        return reconsumeTimes;
    }

    public void setReconsumeTimes(int reconsumeTimes) {
        this.reconsumeTimes = reconsumeTimes;
    }
}
